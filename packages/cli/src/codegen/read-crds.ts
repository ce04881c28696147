// Where `rxfleet gen types` gets its CRDs: a YAML file (one or more documents), or a live server.
import { loadAll } from 'js-yaml';
import { ConfigError, customResourceDefinitions, isLeft } from 'rxfleet';
import type { ClusterClient } from 'rxfleet/client';
import type { CustomResourceDefinition } from 'rxfleet/resources';

/**
 * The CRDs in a YAML text of one or more documents; other kinds (a Namespace next to the CRD) are skipped.
 *
 * @example
 * ```ts
 * const crds = readCrds(fs.readFileSync('config/crd/widgets.yaml', 'utf8'));
 * ```
 * @param yaml - the documents.
 * @param from - names the text in errors, e.g. the file path.
 * @returns every `apiextensions.k8s.io/v1` CustomResourceDefinition, in document order.
 * @throws ConfigError when the YAML does not parse, holds no CRD, or a CRD lacks group, names or versions.
 */
export function readCrds(yaml: string, from = 'the YAML'): CustomResourceDefinition[] {
  let docs: unknown[];
  try {
    docs = loadAll(yaml);
  } catch (err) {
    throw new ConfigError(`${from}: not valid YAML: ${err instanceof Error ? err.message : String(err)}`);
  }
  const crds = docs.filter((d): d is Record<string, unknown> => typeof d === 'object' && d !== null && (d as { kind?: unknown }).kind === 'CustomResourceDefinition');
  if (crds.length === 0) throw new ConfigError(`${from}: no CustomResourceDefinition found (kind: CustomResourceDefinition, apiVersion: apiextensions.k8s.io/v1)`);
  return crds.map((d, i) => checkCrd(d, `${from}, CRD #${i + 1}`));
}

/**
 * Reads one CRD by name from a live server, e.g. to generate types for what is installed.
 *
 * @example
 * ```ts
 * const crd = await readCrdFromCluster(client, 'widgets.example.com', 'cluster "dev"');
 * ```
 * @param client - a client of the cluster.
 * @param name - the CRD's name, `<plural>.<group>`.
 * @param where - names the cluster in errors.
 * @returns the CRD.
 * @throws ConfigError naming the cluster and the cause when it cannot be read.
 */
export async function readCrdFromCluster(client: ClusterClient, name: string, where: string): Promise<CustomResourceDefinition> {
  const r = await client.get(customResourceDefinitions, name);
  if (isLeft(r)) throw new ConfigError(`${where}: cannot read CustomResourceDefinition ${name}: ${r.left.message}`);
  return checkCrd(r.right, `${where}, CustomResourceDefinition ${name}`);
}

function checkCrd(d: unknown, where: string): CustomResourceDefinition {
  const crd = record(d);
  const spec = record(crd?.spec);
  const names = record(spec?.names);
  if (crd?.apiVersion !== undefined && crd.apiVersion !== 'apiextensions.k8s.io/v1') {
    throw new ConfigError(`${where}: apiVersion ${JSON.stringify(crd.apiVersion)} is not supported; convert it to apiextensions.k8s.io/v1`);
  }
  if (typeof spec?.group !== 'string' || typeof names?.kind !== 'string' || typeof names.plural !== 'string' || !Array.isArray(spec.versions)) {
    throw new ConfigError(`${where}: needs spec.group, spec.names.kind, spec.names.plural and spec.versions`);
  }
  // Checked above as far as generation relies on it; the schemas themselves are read leniently.
  return d as CustomResourceDefinition;
}

function record(v: unknown): Record<string, unknown> | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}
