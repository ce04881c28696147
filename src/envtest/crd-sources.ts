// The CustomResourceDefinitions installCrds is given, read and checked before anything is sent:
// objects as they are, YAML or JSON files of one or more documents, and directories of such files.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import { loadAll } from 'js-yaml';
import { ConfigError } from '../core/config-error.js';
import type { CustomResourceDefinition } from '../resources/apiextensions-v1/types.js';

/**
 * One input of {@link installCrds}: a CRD object, or the path of a YAML or JSON file (one or more
 * documents, each a CustomResourceDefinition) or of a directory of such files (`*.yaml`, `*.yml`,
 * `*.json`, not recursive), as controller-runtime's envtest reads `CRDDirectoryPaths`.
 *
 * @example
 * ```ts
 * const inputs: CrdSource[] = ['config/crd/bases', 'test/fixtures/widget-crd.yaml'];
 * ```
 */
export type CrdSource = string | CustomResourceDefinition;

/**
 * A CRD read from its source, with where it came from (for errors).
 *
 * @example
 * ```ts
 * const [first] = readCrdSources(['config/crd/bases']); // { crd, from: 'config/crd/bases/widgets.yaml, document 1' }
 * ```
 */
export interface SourcedCrd {
  readonly crd: CustomResourceDefinition;
  /** `<file>, document <n>` or `object <n>`. */
  readonly from: string;
}

const CRD_API_VERSION = 'apiextensions.k8s.io/v1';
const CRD_KIND = 'CustomResourceDefinition';

/** Why `doc` is not a CRD this helper can install, or undefined. */
function problem(doc: unknown, kindRequired: boolean): string | undefined {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return 'not an object';
  const o = doc as { apiVersion?: unknown; kind?: unknown; metadata?: { name?: unknown }; spec?: { group?: unknown; names?: { plural?: unknown; kind?: unknown }; versions?: unknown } };
  if (o.kind !== undefined || kindRequired) {
    if (o.kind !== CRD_KIND) return `a ${typeof o.kind === 'string' ? o.kind : 'document without a kind'}, not a ${CRD_KIND}`;
  }
  if (o.apiVersion !== undefined && o.apiVersion !== CRD_API_VERSION) return `apiVersion ${JSON.stringify(o.apiVersion)}; the API server serves CRDs as ${CRD_API_VERSION}`;
  if (typeof o.metadata?.name !== 'string') return 'no metadata.name';
  if (typeof o.spec?.group !== 'string') return `${o.metadata.name}: no spec.group`;
  if (typeof o.spec.names?.plural !== 'string' || typeof o.spec.names.kind !== 'string') return `${o.metadata.name}: no spec.names.plural and spec.names.kind`;
  if (!Array.isArray(o.spec.versions) || o.spec.versions.length === 0) return `${o.metadata.name}: no spec.versions`;
  return undefined;
}

function filesOf(path: string): string[] {
  let isDir: boolean;
  try {
    isDir = statSync(path).isDirectory();
  } catch {
    throw new ConfigError(`installCrds: ${path}: no such file or directory`);
  }
  if (!isDir) return [path];
  const files = readdirSync(path, { withFileTypes: true })
    .filter((d) => d.isFile() && ['.yaml', '.yml', '.json'].includes(extname(d.name)))
    .map((d) => join(path, d.name))
    .sort();
  if (files.length === 0) throw new ConfigError(`installCrds: directory ${path} holds no .yaml, .yml or .json file`);
  return files;
}

function readFile(file: string): SourcedCrd[] {
  let docs: unknown[];
  try {
    docs = loadAll(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ConfigError(`installCrds: ${file}: not YAML: ${(err instanceof Error ? err.message : String(err)).split('\n')[0] ?? ''}`);
  }
  const out: SourcedCrd[] = [];
  docs.forEach((doc, i) => {
    if (doc === null || doc === undefined) return; // an empty document (a trailing `---`)
    const from = `${file}, document ${i + 1}`;
    const why = problem(doc, true);
    if (why !== undefined) throw new ConfigError(`installCrds: ${from}: ${why}`);
    out.push({ crd: doc as CustomResourceDefinition, from });
  });
  if (out.length === 0) throw new ConfigError(`installCrds: ${file} holds no ${CRD_KIND}`);
  return out;
}

/**
 * Reads every source: files and directories from disk, objects checked as they are. Throws a
 * ConfigError naming the file (and document) or object and what is wrong, before any request.
 *
 * @example
 * ```ts
 * const crds = readCrdSources(['examples/crd-types/widget-crd.yaml']);
 * crds[0]?.crd.spec.names.plural; // 'widgets'
 * ```
 */
export function readCrdSources(sources: readonly CrdSource[]): SourcedCrd[] {
  return sources.flatMap((source, i): SourcedCrd[] => {
    if (typeof source === 'string') return filesOf(source).flatMap(readFile);
    const from = `object ${i + 1}`;
    const why = problem(source, false);
    if (why !== undefined) throw new ConfigError(`installCrds: ${from}: ${why}`);
    return [{ crd: source, from }];
  });
}
