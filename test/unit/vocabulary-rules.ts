// The vocabulary rules of the public surface (docs/concepts.md, "Glossary"), checked on the API
// reports (etc/api/*.api.md): what users can import is what is checked, whatever file declares it.
// Pure: vocabulary.test.ts feeds it the checked-in reports.

/** One report: its entry point's name (`rxfleet`, `sinks`, `providers-kcp`) and its text. */
export interface Report {
  readonly entry: string;
  readonly text: string;
}

/** A top-level declaration of a report: the name users import and its text. */
interface Declaration {
  readonly entry: string;
  readonly name: string;
  readonly text: string;
}

/**
 * The glossary's terms as property names, with the types a property of that name may have. A type
 * outside its list is a second meaning of the word.
 */
export const glossaryTypes: Readonly<Record<string, readonly string[]>> = {
  fleet: ['FleetView', 'Fleet', 'FleetView | undefined'],
  source: ['SourceIdentity'],
  cluster: ['ClusterName', 'string', 'Cluster'],
  logger: ['Logger'],
  verb: ['WriteVerb', 'Verb', 'Verb | readonly Verb[]'],
  subresource: ["'status'", 'string'],
  kubeconfig: ['KubeconfigSource'],
  resource: ['ResourceDescriptor', 'ResourceDescriptor<T>', 'string'],
  key: ['ObjectKey'],
};

/**
 * Properties that keep another meaning of a glossary word because a format rxfleet mirrors gives
 * it that name (`Type.property`), each with its reason.
 */
export const glossaryExceptions: Readonly<Record<string, string>> = {
  'LoadedKubeconfig.cluster': "a kubeconfig's own `cluster` entry (clusters[].cluster)",
  'Credentials.key': "Node's TLS option `key` (the client private key), passed as it is",
  'SelectorRequirement.key': "a label selector requirement's `key` (metav1.LabelSelectorRequirement), as a PublishedResource writes it",
  'KcpInstallation.kubeconfig': "the sync configuration file's `kubeconfig:` field, a path in the YAML document (SyncConfig)",
};

/** Exported types that keep `…Config` because they mirror a configuration format of that name. */
export const configNames: Readonly<Record<string, string>> = {
  ExecPluginConfig: "a kubeconfig user's `exec` (client-go's ExecConfig)",
  AccessProviderConfig: "a ClusterProfile's access provider (the ClusterProfile API's name)",
  SyncConfig: "the sync agent's configuration file, a document rather than a function's options",
};

/**
 * Reports or declarations that are Kubernetes' (or kcp's) own API shapes, whose field names are
 * theirs: rxfleet/resources whole, and kcp's API types in rxfleet/providers/kcp.
 */
export const apiShapes: ReadonlySet<string> = new Set([
  'APIBinding', 'APIExport', 'APIExportEndpointSlice', 'APIResourceSchema', 'APIResourceVersion', 'ExportReference',
  'ExportResource', 'KcpCondition', 'LogicalCluster', 'PermissionClaim', 'WorkspaceType',
]);
const kubernetesReports: ReadonlySet<string> = new Set(['resources']);

const declStart = /^(?:export )?(?:declare )?(?:abstract )?(?:interface|type|function|const|class|enum|namespace) ([A-Za-z_$][\w$]*)/;
const reExport = /^export \{ ([\w$]+)(?: as ([\w$]+))? \}/;
// api-extractor renames a local that clashes (`Event_2`); the exported name is what users see.
const unsuffix = (s: string): string => s.replace(/\b([A-Za-z][\w$]*?)_\d+\b/g, '$1');

/** The report's top-level declarations, each with the name it is exported as. */
export function declarations(report: Report): Declaration[] {
  const body = report.text.slice(report.text.indexOf('```ts') + 5, report.text.lastIndexOf('```'));
  const byLocal = new Map<string, string[]>();
  const exportedAs = new Map<string, string>();
  let current: { name: string; lines: string[] } | undefined;
  for (const line of body.split('\n')) {
    const start = declStart.exec(line);
    const re = reExport.exec(line);
    if (re?.[1] !== undefined) exportedAs.set(re[1], re[2] ?? re[1]);
    if (start?.[1] !== undefined && !line.startsWith(' ')) {
      current = { name: start[1], lines: [line] };
      byLocal.set(start[1], [...(byLocal.get(start[1]) ?? []), line]);
      continue;
    }
    if (current === undefined) continue;
    if (line.trim() === '' || line.startsWith('//') || line.startsWith('export {')) {
      current = undefined;
      continue;
    }
    byLocal.get(current.name)?.push(line);
  }
  return [...byLocal].map(([local, lines]) => ({
    entry: report.entry,
    name: exportedAs.get(local) ?? local,
    text: unsuffix(lines.join('\n').replace(/^(?:export )?(?:declare )?/gm, '').replace(/\s+/g, ' ').trim()),
  }));
}

/** The properties of a declaration (any depth): name, type text (`?` dropped), and the type they belong to. */
function properties(d: Declaration): { readonly name: string; readonly type: string }[] {
  const out: { name: string; type: string }[] = [];
  for (const m of d.text.matchAll(/(?<=^|[{;] )(?:readonly )?([A-Za-z_$][\w$]*)(\??): ([^;{]+?);/g)) {
    // An optional property may say `| undefined` (exactOptionalPropertyTypes); the type is the rest.
    if (m[1] !== undefined && m[3] !== undefined) out.push({ name: m[1], type: m[2] === '?' ? m[3].trim().replace(/ \| undefined$/, '') : m[3].trim() });
  }
  return out;
}

/**
 * Every breach of the vocabulary in the reports, one line each: a name exported from two entry
 * points with different declarations, a forbidden spelling, a glossary word with another type.
 */
export function vocabularyProblems(reports: readonly Report[]): string[] {
  const problems: string[] = [];
  const all = reports.flatMap(declarations);
  const byName = new Map<string, Declaration[]>();
  for (const d of all) byName.set(d.name, [...(byName.get(d.name) ?? []), d]);
  for (const [name, ds] of byName) {
    const texts = new Set(ds.map((d) => d.text));
    if (texts.size > 1) problems.push(`${name}: exported from ${ds.map((d) => d.entry).join(', ')} with different declarations`);
  }
  for (const d of all) {
    if (kubernetesReports.has(d.entry) || apiShapes.has(d.name)) continue;
    const where = `${d.entry}: ${d.name}`;
    if (d.name.includes('KubeConfig') || d.text.includes('KubeConfig')) problems.push(`${where}: spells KubeConfig (write Kubeconfig)`);
    if (/(Config|Settings)$/.test(d.name) && configNames[d.name] === undefined && /^(interface|type) /.test(d.text)) problems.push(`${where}: an option type is named …Options, not …Config or …Settings`);
    if (/\bclusterName\??:/.test(d.text)) problems.push(`${where}: clusterName (a cluster's name is \`cluster\`)`);
    if (/(Options|Settings|Config|Spec)$/.test(d.name) && /^interface [\w$]+(?:<[^>]*>)? extends (?:[^{]*[ ,])?Omit</.test(d.text)) problems.push(`${where}: built with Omit<> (name the public part and extend it)`);
    for (const p of properties(d)) {
      if (p.name === 'log') problems.push(`${where}.log: a logger is \`logger\``);
      if (/(Config|Settings)$/.test(p.name) && configNames[d.name] === undefined) problems.push(`${where}.${p.name}: options are …Options`);
      if (/Config$|Settings$/.test(p.type) && configNames[p.type] === undefined && !p.type.includes(' ')) problems.push(`${where}.${p.name}: of type ${p.type} (options are …Options)`);
      if (p.type.includes('Omit<')) problems.push(`${where}.${p.name}: Omit<> in an option (name the public part: a …Options interface)`);
      const allowed = glossaryTypes[p.name];
      if (allowed !== undefined && !allowed.includes(p.type) && glossaryExceptions[`${d.name}.${p.name}`] === undefined) {
        problems.push(`${where}.${p.name}: ${p.type} (the glossary's \`${p.name}\` is ${allowed.join(' or ')})`);
      }
    }
  }
  return [...new Set(problems)].sort();
}
