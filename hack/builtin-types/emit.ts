// Lays the generated built-in types out as files: types by API group-version (split so that no file
// passes 300 lines), one descriptor file per group-version, and the `rxfleet/resources` barrel.
import { coreNames, homeOf, reachable, summary, typeOf } from './schema.js';
import type { Schema, TypeContext } from './schema.js';
import { sample } from './sample.js';

/** What the generator reads for one group-version: its discovery document and its OpenAPI v3 document. */
export interface GroupVersionInput {
  readonly group: string;
  readonly version: string;
  readonly discovery: unknown;
  readonly openapi: unknown;
}

interface Resource {
  readonly group: string;
  readonly version: string;
  readonly plural: string;
  readonly kind: string;
  readonly namespaced: boolean;
  readonly key: string;
}

const maxTypeLines = 260;

const pascal = (home: string): string => home.split('-').map((p) => p.charAt(0).toUpperCase() + p.slice(1)).join('');
const ident = (name: string): string => (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : `'${name}'`);

/** `podDisruptionBudgets` from kind `PodDisruptionBudget` and plural `poddisruptionbudgets`. */
function camelPlural(kind: string, plural: string): string {
  let i = 0;
  while (i < kind.length && i < plural.length && kind[i]?.toLowerCase() === plural[i]) i++;
  return kind.charAt(0).toLowerCase() + kind.slice(1, i) + plural.slice(i);
}

function resourcesOf(input: GroupVersionInput, schemas: Readonly<Record<string, Schema>>): Resource[] {
  const list = (input.discovery as { resources?: readonly { name: string; kind: string; namespaced: boolean; verbs?: readonly string[] }[] }).resources ?? [];
  const byGvk = new Map<string, string>();
  for (const [key, s] of Object.entries(schemas)) for (const g of s['x-kubernetes-group-version-kind'] ?? []) byGvk.set(`${g.group}/${g.version}/${g.kind}`, key);
  return list
    .filter((r) => !r.name.includes('/') && (r.verbs ?? []).includes('get'))
    .flatMap((r) => {
      const key = byGvk.get(`${input.group}/${input.version}/${r.kind}`);
      return key === undefined ? [] : [{ group: input.group, version: input.version, plural: r.name, kind: r.kind, namespaced: r.namespaced, key }];
    });
}

/** Every generated file, by path under src/resources/, from the fetched documents. */
export function emitResources(inputs: readonly GroupVersionInput[], header: string): Map<string, string> {
  const schemas: Record<string, Schema> = {};
  for (const i of inputs) Object.assign(schemas, (i.openapi as { components: { schemas: Record<string, Schema> } }).components.schemas);
  const resources = inputs.flatMap((i) => resourcesOf(i, schemas));
  const named = reachable(resources.map((r) => r.key), schemas);

  // Homes in claim order: core first, then meta, then the group-versions as listed.
  const homeOrder = [...new Set(['core-v1', 'meta-v1', ...[...named].map(homeOf).sort()])];
  const names = new Map<string, string>();
  const taken = new Set<string>([...coreNames, 'Readonly', 'Record']);
  for (const home of homeOrder) {
    for (const key of [...named].filter((k) => homeOf(k) === home).sort()) {
      const short = key.slice(key.lastIndexOf('.') + 1);
      const name = taken.has(short) ? `${pascal(home)}${short}` : short;
      taken.add(name);
      names.set(key, name);
    }
  }
  const nameOf = (key: string): string => names.get(key) ?? (key.endsWith('.ObjectMeta') ? 'ObjectMeta' : 'OwnerReference');

  const files = new Map<string, string>();
  const fileOf = new Map<string, string>();
  const chunks: { file: string; keys: string[]; body: string[]; uses: Set<string> }[] = [];
  for (const home of homeOrder) {
    const keys = [...named].filter((k) => homeOf(k) === home).sort((a, b) => nameOf(a).localeCompare(nameOf(b)));
    let current: (typeof chunks)[number] | undefined;
    const homeChunks: (typeof chunks)[number][] = [];
    for (const key of keys) {
      const uses = new Set<string>();
      const ctx: TypeContext = { schemas, nameOf, use: (k) => uses.add(k) };
      const lines = renderType(key, schemas[key] ?? {}, ctx);
      if (current === undefined || current.body.length + lines.length > maxTypeLines) {
        current = { file: '', keys: [], body: [], uses: new Set() };
        homeChunks.push(current);
      }
      current.keys.push(key);
      current.body.push(...lines);
      for (const u of uses) current.uses.add(u);
    }
    homeChunks.forEach((c, i) => {
      c.file = homeChunks.length === 1 ? `${home}/types.ts` : `${home}/types-${i + 1}.ts`;
      for (const k of c.keys) fileOf.set(k, c.file);
      chunks.push(c);
    });
  }
  for (const c of chunks) {
    files.set(c.file, [header, `// ${c.file.split('/')[0]} types.`, ...importsOf(c.file, c.uses, c.keys, fileOf, nameOf, c.body), '', ...c.body, ''].join('\n'));
  }

  const barrel: string[] = [
    header,
    '/**',
    ' * rxfleet/resources: TypeScript types and resource descriptors of the built-in APIs controllers touch',
    ' * most (core, apps, batch, networking, RBAC, coordination, policy, apiextensions, events), generated',
    ' * from a real kube-apiserver by hack/gen-builtin-types.ts. The types cost nothing at run time; the',
    ' * descriptors are small frozen objects. This is the one home of built-in types: the root `rxfleet`',
    ' * re-exports `configMaps`, `secrets`, `namespaces`, `leases`, `customResourceDefinitions` and',
    ' * `ConfigMap`, `Secret`, `Namespace`, `Lease`, `LabelSelector` from here.',
    ' *',
    ' * @example',
    ' * ```ts',
    " * import { deployments } from 'rxfleet/resources';",
    " * import type { Deployment } from 'rxfleet/resources';",
    " * const scaled = (d: Deployment): number => d.spec?.replicas ?? 1;",
    " * const web = await client.get(deployments, 'web', { namespace: 'default' });",
    ' * ```',
    ' * @module',
    ' */',
  ];
  for (const c of chunks) barrel.push(`export type * from './${c.file.replace(/\.ts$/, '.js')}';`);
  const descriptorNames = new Set<string>();
  for (const home of homeOrder) {
    const rs = resources.filter((r) => homeOf(r.key) === home).sort((a, b) => a.plural.localeCompare(b.plural));
    if (rs.length === 0) continue;
    const file = `${home}/resources.ts`;
    const body: string[] = [];
    const uses = new Set<string>();
    for (const r of rs) {
      let id = camelPlural(r.kind, r.plural);
      if (descriptorNames.has(id)) id = `${pascal(home).charAt(0).toLowerCase()}${pascal(home).slice(1)}${id.charAt(0).toUpperCase()}${id.slice(1)}`;
      descriptorNames.add(id);
      uses.add(r.key);
      const gv = r.group === '' ? r.version : `${r.group}/${r.version}`;
      const call = r.namespaced ? `client.list(${id}, { namespace: 'default' })` : `client.list(${id})`;
      body.push(`/** ${r.kind} objects (${gv}, ${r.namespaced ? 'namespaced' : 'cluster-scoped'}). @example \`${call}\` */`);
      body.push(`export const ${id}: ResourceDescriptor<${nameOf(r.key)}> = Object.freeze({ group: '${r.group}', version: '${r.version}', plural: '${r.plural}', kind: '${r.kind}', namespaced: ${r.namespaced} });`);
    }
    if (uses.size === 0) continue;
    const imports = importsOf(file, uses, [], fileOf, nameOf, body);
    imports.push(`import type { ResourceDescriptor } from '../../core/resource.js';`);
    files.set(file, [header, `// ${home} resource descriptors: group, version, plural, kind and scope, typed by their objects.`, ...imports.sort(), '', ...body, ''].join('\n'));
    barrel.push(`export * from './${file.replace(/\.ts$/, '.js')}';`);
  }
  files.set('index.ts', `${barrel.join('\n')}\n`);
  return files;
}

function importsOf(file: string, uses: Set<string>, own: readonly string[], fileOf: Map<string, string>, nameOf: (k: string) => string, body: readonly string[]): string[] {
  const byFile = new Map<string, Set<string>>();
  const add = (from: string, name: string) => byFile.set(from, (byFile.get(from) ?? new Set()).add(name));
  for (const k of uses) {
    if (own.includes(k)) continue;
    const name = nameOf(k);
    if (coreNames.has(name)) add('../../core/object.js', name);
    else {
      const f = fileOf.get(k);
      if (f === undefined) throw new Error(`${file}: no file for ${k}`);
      if (f !== file) add(f.split('/')[0] === file.split('/')[0] ? `./${f.split('/')[1] ?? ''}` : `../${f}`, name);
    }
  }
  if (body.some((l) => l.includes('extends KubeObject'))) add('../../core/object.js', 'KubeObject');
  return [...byFile]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([from, ns]) => `import type { ${[...ns].sort().join(', ')} } from '${from.replace(/\.ts$/, '.js')}';`);
}

/** One interface: a one-line doc with a checked-shape example, then one line per property. */
function renderType(key: string, s: Schema, ctx: TypeContext): string[] {
  const name = ctx.nameOf(key);
  const isKind = (s['x-kubernetes-group-version-kind']?.length ?? 0) > 0 && s.properties?.metadata !== undefined;
  const required = new Set(s.required ?? []);
  const props = Object.entries(s.properties ?? {}).filter(([p]) => !isKind || !['apiVersion', 'kind', 'metadata'].includes(p));
  const example = `const x: ${name} = ${sample(key, ctx.schemas, 0)};`;
  const lines = [`/** ${summary(s.description, `${name}.`)} @example \`${example}\` */`, `export interface ${name}${isKind ? ' extends KubeObject' : ''} {`];
  for (const [p, ps] of props) {
    lines.push(`  /** ${summary(ps.description, `The \`${p}\` field.`)} */ readonly ${ident(p)}${required.has(p) ? '' : '?'}: ${typeOf(ps, ctx)};`);
  }
  lines.push('}');
  return lines;
}
