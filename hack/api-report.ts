// The public surface as checked-in text: one API Extractor report per entry point of package.json
// and of each workspace package (packages/*: `@rxfleet/cli/codegen` is `rxfleet-cli-codegen`), as
// `etc/api/<entry>.api.md`, built from the emitted .d.ts, so that every change to what users can
// import shows up in review. Wildcard exports (`./providers/*`) are expanded from dist/; subpaths
// the map closes (`"./providers/internal": null`) are left out.
//
//   npm run api-report          regenerate etc/api/ (after `npm run build`)
//   npm run api-report:check    fail when etc/api/ differs from the built .d.ts (npm test runs it)
//   node hack/api-report.ts [--check] [entry...]   e.g. `providers-kcp`
//
// One TypeScript program serves every entry point (CompilerState with all of them), so the run costs
// one type-check of dist/ plus one report per entry.
import { CompilerState, Extractor, ExtractorConfig, ExtractorLogLevel } from '@microsoft/api-extractor';
import type { IConfigFile } from '@microsoft/api-extractor';
import type ts from 'typescript';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const reportFolder = join(root, 'etc', 'api');
const check = process.argv.includes('--check');
const wanted = process.argv.slice(2).filter((a) => !a.startsWith('--'));

interface Entry {
  /** Report name: `rxfleet`, `operators`, `providers-kcp`, `rxfleet-cli-codegen`. */
  readonly name: string;
  /** The entry's .d.ts, relative to the repository root. */
  readonly types: string;
  /** Its package's package.json, relative to the repository root. */
  readonly packageJson: string;
}

/** Every entry point a package.json exports with types, wildcards expanded from the built tree. */
function entriesOf(dir: string): Entry[] {
  const packageJson = join(dir, 'package.json');
  const pkg = JSON.parse(readFileSync(join(root, packageJson), 'utf8')) as { name: string; exports?: Record<string, unknown> };
  const exports = pkg.exports ?? {};
  // The root package's reports keep their names (`operators`); another package's start with its own.
  const base = dir === '' ? undefined : pkg.name.replace(/^@/, '').replaceAll('/', '-');
  const nameOf = (key: string) => (key === '.' ? (base ?? 'rxfleet') : [base, key.slice(2).replaceAll('/', '-')].filter((p) => p !== undefined).join('-'));
  const out: Entry[] = [];
  for (const [key, target] of Object.entries(exports)) {
    if (typeof target !== 'object' || target === null || !('types' in target) || typeof target.types !== 'string') continue;
    const types = join(dir, target.types);
    if (!key.includes('*')) {
      out.push({ name: nameOf(key), types, packageJson });
      continue;
    }
    const [before = '', after = ''] = types.split('*');
    const from = join(root, before);
    if (!existsSync(from)) throw new Error(`${key}: ${relative(root, from)} does not exist; run \`npm run build\` first`);
    for (const d of readdirSync(from, { withFileTypes: true })) {
      const sub = key.replace('*', d.name);
      // A subpath the map closes with null is not public, whatever the wildcard says.
      if (!d.isDirectory() || exports[sub] === null) continue;
      const file = `${before}${d.name}${after}`;
      if (existsSync(join(root, file))) out.push({ name: nameOf(sub), types: file, packageJson });
    }
  }
  return out;
}

/** The entry points of the root package, then of every workspace package (packages/*). */
function entries(): Entry[] {
  const packages = readdirSync(join(root, 'packages'), { withFileTypes: true }).filter((d) => d.isDirectory() && existsSync(join(root, 'packages', d.name, 'package.json')));
  return [...entriesOf(''), ...packages.flatMap((d) => entriesOf(join('packages', d.name)))];
}

function configOf(entry: Entry, tempFolder: string, into: string): IConfigFile {
  return {
    projectFolder: root,
    mainEntryPointFilePath: join(root, entry.types),
    compiler: {
      // The .d.ts only: the options that resolve them, not the source tsconfig (noEmit, includes).
      overrideTsconfig: {
        compilerOptions: { target: 'ES2023', lib: ['ES2023'], module: 'NodeNext', moduleResolution: 'NodeNext', types: ['node'], strict: true, skipLibCheck: true },
        files: [join(root, entry.types)],
      },
    },
    apiReport: { enabled: true, reportFolder: into, reportTempFolder: tempFolder, reportFileName: entry.name },
    docModel: { enabled: false },
    dtsRollup: { enabled: false },
    tsdocMetadata: { enabled: false },
    messages: {
      compilerMessageReporting: { default: { logLevel: ExtractorLogLevel.Error } },
      extractorMessageReporting: {
        default: { logLevel: ExtractorLogLevel.Warning },
        // rxfleet does not use release tags (@public, @beta): everything exported is public.
        'ae-missing-release-tag': { logLevel: ExtractorLogLevel.None },
        // A type used by the surface but not exported from this entry: shown in the report, where a
        // reviewer sees it, instead of failing the run.
        'ae-forgotten-export': { logLevel: ExtractorLogLevel.None, addToApiReportFile: true },
        // Documentation is TypeDoc's to check (npm run docs, warnings are errors).
        'ae-undocumented': { logLevel: ExtractorLogLevel.None, addToApiReportFile: false },
        'ae-unresolved-link': { logLevel: ExtractorLogLevel.None },
      },
      // Doc comments are TypeDoc's (npm run docs), not TSDoc: do not judge their syntax here.
      tsdocMessageReporting: { default: { logLevel: ExtractorLogLevel.None } },
    },
  };
}

/**
 * Each entry is analysed alone, so a type another entry point exports (`KubeObject` from the root,
 * used by `rxfleet/operators`) is reported as a "forgotten export". Only the types no entry point
 * exports are worth a reviewer's eye: keep those warnings, drop the rest.
 */
function keepForgotten(report: string, exported: ReadonlySet<string>): string {
  const forgotten = /\(ae-forgotten-export\) The symbol "([^"]+)" needs to be exported/;
  const lines = report.split('\n').filter((l) => {
    const m = forgotten.exec(l);
    return m?.[1] === undefined || !exported.has(m[1]);
  });
  // An empty "Warnings were encountered during analysis:" trailer goes too (with its blank line).
  const at = lines.findIndex((l) => l.startsWith('// Warnings were encountered during analysis:'));
  if (at >= 0) {
    const end = lines.findIndex((l, i) => i > at && !l.startsWith('//'));
    if (end > at && lines.slice(at + 1, end).every((l) => l.trim() === '//')) lines.splice(at, end - at + 1);
  }
  return lines.join('\n');
}

const all = entries();
const list = all.filter((e) => wanted.length === 0 || wanted.includes(e.name));
if (list.length === 0) throw new Error(`no entry point matches ${wanted.join(', ')}`);
const temp = mkdtempSync(join(tmpdir(), 'rxfleet-api-'));
const fresh = join(temp, 'fresh');
mkdirSync(fresh);
const started = performance.now();
const changed: string[] = [];
let failed = 0;
try {
  const prepare = (e: Entry) =>
    ExtractorConfig.prepare({ configObject: configOf(e, join(temp, 'work'), fresh), configObjectFullPath: undefined, packageJsonFullPath: join(root, e.packageJson) });
  // One program for every entry point: the run type-checks dist/ once.
  const [first] = all;
  if (first === undefined) throw new Error('no entry points');
  const state = CompilerState.create(prepare(first), { additionalEntryPoints: all.map((e) => join(root, e.types)) });
  const program = state.program as ts.Program;
  const checker = program.getTypeChecker();
  const exported = new Set<string>();
  for (const e of all) {
    const sf = program.getSourceFile(join(root, e.types));
    const mod = sf === undefined ? undefined : checker.getSymbolAtLocation(sf);
    for (const s of mod === undefined ? [] : checker.getExportsOfModule(mod)) exported.add(s.getName());
  }
  for (const e of list) {
    const result = Extractor.invoke(prepare(e), {
      localBuild: true,
      compilerState: state,
      messageCallback: (m) => {
        // Where the report went is this script's business (below), not API Extractor's.
        if (m.messageId.startsWith('console-api-report-') || m.messageId === 'console-preamble') m.logLevel = ExtractorLogLevel.None;
      },
    });
    if (!result.succeeded) failed++;
    const name = `${e.name}.api.md`;
    const report = keepForgotten(readFileSync(join(fresh, name), 'utf8'), exported);
    const target = join(reportFolder, name);
    if (existsSync(target) && readFileSync(target, 'utf8') === report) continue;
    changed.push(`etc/api/${name}`);
    if (!check) {
      mkdirSync(reportFolder, { recursive: true });
      writeFileSync(target, report);
    }
  }
  // A report whose entry point is gone is stale too.
  if (wanted.length === 0 && existsSync(reportFolder)) {
    for (const f of readdirSync(reportFolder)) {
      if (!f.endsWith('.api.md') || list.some((e) => `${e.name}.api.md` === f)) continue;
      changed.push(`etc/api/${f} (no such entry point)`);
      if (!check) rmSync(join(reportFolder, f));
    }
  }
} finally {
  rmSync(temp, { recursive: true, force: true });
}
const seconds = ((performance.now() - started) / 1000).toFixed(1);
if (failed > 0) {
  console.error(`API Extractor failed on ${failed} entry point(s): see the errors above`);
  process.exitCode = 1;
} else if (check && changed.length > 0) {
  console.error(`The public API differs from etc/api/ (run \`npm run api-report\`, review and commit the diff):\n  ${changed.join('\n  ')}`);
  process.exitCode = 1;
} else {
  console.log(`${list.length} API reports ${check ? 'match the build' : changed.length === 0 ? 'unchanged' : `written (${changed.length} changed)`} in ${seconds} s`);
}
