// What `rxfleet init` (and `npm create rxfleet`) writes: the files under this package's
// templates/init/, each `<path>.tmpl` copied to `<dir>/<path>` with `{{key}}` replaced. The templates
// ship in the package (its `files`), so what a user gets is what the new-user integration test
// builds and tests.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from 'rxfleet';

/**
 * What {@link scaffold} fills the templates with.
 *
 * @example
 * ```ts
 * const vars: ScaffoldValues = { name: 'greeter', rxfleetRange: '^0.3.0', cliRange: '^0.3.0', rxjsRange: '^7.8.2', typescriptRange: '~6.0.3', vitestRange: '^5.1.1', typesNodeRange: '^24.0.0', nodeRange: '^24.21.0', rolldownRange: '~1.2.18' };
 * ```
 */
export interface ScaffoldValues {
  /** The project's name: its npm name, namespace, ServiceAccount, image and controller name. */
  readonly name: string;
  /** The `rxfleet` dependency, e.g. `^0.3.0` or `file:../rxfleet-0.3.0.tgz`. */
  readonly rxfleetRange: string;
  /** The `@rxfleet/cli` dev dependency, e.g. `^0.3.0` or `file:../rxfleet-cli-0.3.0.tgz`. */
  readonly cliRange: string;
  /** The `rxjs` dependency (rxfleet's peer). */
  readonly rxjsRange: string;
  /** The `typescript` dev dependency. */
  readonly typescriptRange: string;
  /** The `vitest` dev dependency. */
  readonly vitestRange: string;
  /** The `@types/node` dev dependency. */
  readonly typesNodeRange: string;
  /** The `node` dev dependency (the npm package of Node itself): npm runs the project's scripts on it, as rxfleet's own do. */
  readonly nodeRange: string;
  /** The `rolldown` dev dependency: `npm run bundle` makes one ES module per controller with it. */
  readonly rolldownRange: string;
}

/** Template names npm would not ship as is (it drops `.gitignore`), renamed on the way out. */
const RENAMES: Readonly<Record<string, string>> = { gitignore: '.gitignore', dockerignore: '.dockerignore', nvmrc: '.nvmrc' };

function packageRoot(): string {
  // dist/scaffold.js and src/scaffold.ts are both one level below the package root.
  return join(dirname(fileURLToPath(import.meta.url)), '..');
}

/**
 * The folder of the init templates in this package.
 *
 * @example
 * ```ts
 * const dir = templatesDir(); // <package>/templates/init
 * ```
 */
export function templatesDir(): string {
  return join(packageRoot(), 'templates', 'init');
}

interface PackageJson {
  readonly version?: string;
  readonly peerDependencies?: Readonly<Record<string, string>>;
  readonly devDependencies?: Readonly<Record<string, string>>;
}

function readPackage(file: string): PackageJson {
  return JSON.parse(readFileSync(file, 'utf8')) as PackageJson;
}

/** One range from a package.json, or an error saying which one is missing (a broken install). */
function rangeOf(ranges: Readonly<Record<string, string>> | undefined, name: string, where: string): string {
  const range = ranges?.[name];
  if (range === undefined) throw new Error(`rxfleet init: ${where} names no ${name} range; reinstall rxfleet and @rxfleet/cli`);
  return range;
}

/**
 * The dependency ranges of a new project: rxfleet and @rxfleet/cli at this release, and, from the
 * package.json of rxfleet (this package's peer), the rxjs it takes and the TypeScript, vitest,
 * @types/node, Node (the npm `node` package) and rolldown (the bundler) it is built and tested with.
 *
 * @example
 * ```ts
 * const values = defaultScaffoldValues('greeter');
 * ```
 */
export function defaultScaffoldValues(name: string): ScaffoldValues {
  const cli = readPackage(join(packageRoot(), 'package.json'));
  const where = createRequire(import.meta.url).resolve('rxfleet/package.json');
  const rxfleet = readPackage(where);
  return {
    name,
    rxfleetRange: `^${rxfleet.version ?? '0.0.0'}`,
    cliRange: `^${cli.version ?? '0.0.0'}`,
    rxjsRange: rangeOf(rxfleet.peerDependencies, 'rxjs', where),
    typescriptRange: rangeOf(rxfleet.devDependencies, 'typescript', where),
    vitestRange: rangeOf(rxfleet.devDependencies, 'vitest', where),
    typesNodeRange: rangeOf(rxfleet.devDependencies, '@types/node', where),
    nodeRange: rangeOf(rxfleet.devDependencies, 'node', where),
    rolldownRange: rangeOf(rxfleet.devDependencies, 'rolldown', where),
  };
}

/**
 * Checks a project name: an npm package name that is also a Kubernetes namespace and object name
 * (lowercase letters, digits and `-`, starting with a letter, at most 53 characters so that
 * `<name>-kubeconfig` and `<name>-metrics` stay within 63).
 *
 * @example
 * ```ts
 * checkProjectName('greeter'); // ok; checkProjectName('My_App') throws a ConfigError
 * ```
 */
export function checkProjectName(name: string): void {
  if (!/^[a-z]([a-z0-9-]{0,51}[a-z0-9])?$/.test(name)) {
    throw new ConfigError(
      `project name ${JSON.stringify(name)}: expected lowercase letters, digits and '-', starting with a letter and not ending with '-', ` +
        'at most 53 characters (it names the npm package, the namespace and the Kubernetes objects); pass --name',
    );
  }
}

function templates(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = join(dir, d.name);
    if (d.isDirectory()) return templates(p);
    return d.name.endsWith('.tmpl') ? [p] : [];
  });
}

function render(text: string, values: ScaffoldValues, file: string): string {
  return text.replace(/\{\{(\w+)\}\}/g, (_m, key: string) => {
    const v = (values as unknown as Readonly<Record<string, unknown>>)[key];
    if (typeof v !== 'string') throw new Error(`template ${file}: unknown placeholder {{${key}}}`);
    return v;
  });
}

/**
 * Writes a new project into `dir` (created if missing). Refuses a folder that already holds any
 * of the files it would write, unless `force`. Returns the paths written, relative to `dir`.
 *
 * @example
 * ```ts
 * const written = scaffold('greeter', defaultScaffoldValues('greeter')); // ['Dockerfile', 'README.md', ...]
 * ```
 */
export function scaffold(dir: string, values: ScaffoldValues, opts: { readonly force?: boolean } = {}): string[] {
  checkProjectName(values.name);
  const from = templatesDir();
  if (!existsSync(from)) throw new Error(`@rxfleet/cli has no templates at ${from}; reinstall it`);
  const plan = templates(from).map((file) => {
    const rel = relative(from, file).slice(0, -'.tmpl'.length);
    const base = rel.split('/').pop() ?? rel;
    const out = base in RENAMES ? join(dirname(rel), RENAMES[base] ?? base) : rel;
    return { file, out };
  });
  const clashes = plan.filter((p) => existsSync(join(dir, p.out))).map((p) => p.out);
  if (clashes.length > 0 && opts.force !== true) {
    throw new ConfigError(`${dir} already has ${clashes.join(', ')}; choose an empty folder or pass --force to overwrite`);
  }
  for (const p of plan) {
    const target = join(dir, p.out);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, render(readFileSync(p.file, 'utf8'), values, p.file));
  }
  return plan.map((p) => p.out).sort();
}
