// The agent's start: everything about the config that can be checked against the servers is checked
// once, before any controller runs, and every problem is reported together (a config with three
// mistakes should take one round trip to fix, not three). What it decides (the sync version, the
// projected resource) holds for the agent's whole run.
import type { ClusterClient } from 'rxfleet/client';
import { ConfigError } from 'rxfleet';
import { E } from 'rxfleet/fp';
import { resource } from 'rxfleet';
import type { KubeError, ObjectList, ResourceDescriptor } from 'rxfleet';
import type { Either } from 'rxfleet/fp';
import type { CustomResourceDefinition } from 'rxfleet/resources';
import { exportOwner } from './export-merge.js';
import type { APIExport } from 'rxfleet/providers/kcp';
import { apiExports, apiResourceSchemas } from 'rxfleet/providers/kcp';
import { agentLabel, defaultAgentName } from './labels.js';
import { parseLabelSelector } from './label-selector.js';
import { namingProblem, sharedSourceProblem } from './naming-check.js';
import { pathProblem } from './object-path.js';
import { relatedReferenceProblem } from './related-places.js';
import { resolveRelated } from './related-preflight.js';
import { compileSelector } from './related-selector.js';
import { referenceRegexProblem } from './related-regex.js';
import { checkRelatedOptions } from './related-options-check.js';
import { relatedNamespaceProblem } from './related-namespace.js';
import type { Json } from './config-check.js';
import { Problems } from './config-check.js';
import type { CompiledMutations } from './mutation.js';
import { compileMutations } from './mutation.js';
import type { PublishedPlan } from './plan.js';
import { projectedNames, versionChoice } from './schema.js';
import { parseTemplate } from './template.js';
import { kcpVersionName } from './version-names.js';
import { installationCollisions, unknownAdoptInstallations } from './installations-config.js';
import type { PublishedResource, SyncConfig } from './types.js';

/** The CRDs of the service cluster, typed. */
const crds = resource<CustomResourceDefinition>({ group: 'apiextensions.k8s.io', version: 'v1', plural: 'customresourcedefinitions', kind: 'CustomResourceDefinition', namespaced: false });

/**
 * The service cluster's CRDs, as preflight lists them: one list, which a round's client
 * (round-reads.ts) sends once for every check of the round and whatever else reads them in it.
 *
 * @example
 * ```ts
 * const listed = await serviceCrds(round.clients.service);
 * ```
 * @param service - the service cluster's client.
 * @returns the list, or why it cannot be read.
 */
export function serviceCrds(service: ClusterClient): Promise<Either<KubeError, ObjectList<CustomResourceDefinition>>> {
  return service.listAll(crds);
}

/**
 * The two clients preflight reads through: the service cluster's and the kcp provider workspace's
 * (where the APIExport lives).
 *
 * @example
 * ```ts
 * const clients: PreflightClients = { service: serviceClient, kcp: providerWorkspaceClient };
 * ```
 */
export interface PreflightClients {
  /** A client of the service cluster (reads its CRDs). */
  readonly service: ClusterClient;
  /** A client of the kcp provider workspace (reads the APIExport and its schemas). */
  readonly kcp: ClusterClient;
}

/**
 * Checks a sync config against the service cluster and kcp, and decides each published resource's
 * plan. Problems found, all reported in ONE {@link ConfigError}, each naming the published resource,
 * the cluster and the cause: duplicate published names; two entries projecting to the same kcp
 * group+resource; no CRD of the source's group+kind; a version that does not exist, is not served
 * or that kcp cannot name; `syncUp.status` without a status subresource; a template or path that
 * does not parse; naming templates that could give two consumer objects one place on the service
 * cluster (`namingProblem`); one CRD published twice; a related reference a consumer could point at
 * another consumer object's related object (`relatedReferenceProblem`); a related identifier used twice; a
 * related resource either side does not serve (`resolveRelated`, by discovery); an APIExport annotated for another agent, or
 * listing one of the published resources with a schema this agent did not make.
 *
 * @example
 * ```ts
 * const plans = await preflight(config, { service: serviceClient, kcp: providerClient });
 * for (const p of plans) console.log(p.published.name, p.service.version);
 * ```
 * @param config - the parsed config.
 * @param clients - the service cluster's and the provider workspace's clients.
 * @returns one plan per published resource, in config order.
 * @throws ConfigError listing every problem; Error when a server cannot be read (naming the cluster and the cause).
 */
export async function preflight(config: SyncConfig, clients: PreflightClients): Promise<readonly PublishedPlan[]> {
  const agentName = config.agentName ?? defaultAgentName;
  const service = clients.service.cluster;
  const kcp = clients.kcp.cluster;
  const listed = await serviceCrds(clients.service);
  if (E.isLeft(listed)) throw new Error(`sync preflight: cannot list CRDs on the service cluster ${service}: ${listed.left.message}`);
  const problems: string[] = [];
  const plans: PublishedPlan[] = [];
  const names = new Map<string, number>();
  const projected = new Map<string, string>();
  config.published.forEach((p, i) => {
    const where = p.from ?? `published[${i}] "${p.name}"`;
    const first = names.get(p.name);
    if (first === undefined) names.set(p.name, i);
    else problems.push(`${where}: the name is already used by published[${first}]; names must be unique`);
    problems.push(...configProblems(p).map((m) => `${where}: ${asWritten(p, m)}`));
    const twice = sharedSourceProblem(config.published, i);
    if (twice !== undefined) problems.push(`${where}: ${twice}`);
    const crd = listed.right.items.find((c) => c.spec.group === p.crd.group && c.spec.names.kind === p.crd.kind);
    if (crd === undefined) {
      problems.push(`${where}: no CRD of kind ${p.crd.kind} in group ${p.crd.group} on the service cluster ${service}`);
      return;
    }
    const plan = planOf(crd, p, agentName);
    if (plan.type === 'invalid') {
      problems.push(...plan.problems.map((m) => `${where}: ${asWritten(p, m)} (service cluster ${service})`));
      return;
    }
    const naming = namingProblem(p, plan.plan.service.namespaced, plan.plan.kcp.namespaced);
    if (naming !== undefined) problems.push(`${where}: ${naming}`);
    const k = `${plan.plan.kcp.plural}.${plan.plan.kcp.group}`;
    const other = projected.get(k);
    if (other !== undefined) problems.push(`${where}: projects to ${k} in kcp, as ${other} does; each published resource needs its own group+resource`);
    else projected.set(k, where);
    plans.push(plan.plan);
  });
  const resolved = await resolveRelated(plans, clients, (plan) => plan.published.from ?? `published[${config.published.indexOf(plan.published)}] "${plan.published.name}"`);
  problems.push(...resolved.problems);
  problems.push(...(await exportProblems(clients.kcp, config.apiExport, agentName, projected)).map((m) => `${m} (kcp workspace ${kcp})`));
  const named = (p: PublishedPlan): string => p.published.from ?? `published[${config.published.indexOf(p.published)}] "${p.published.name}"`;
  const entries = resolved.plans.map((p) => ({ where: named(p), entry: p.published, namespaced: p.service.namespaced }));
  problems.push(...installationCollisions(config.installations, entries), ...unknownAdoptInstallations(config.installations, entries));
  if (problems.length > 0) throw new ConfigError(`sync config: ${problems.length} problem${problems.length === 1 ? '' : 's'}:\n- ${problems.join('\n- ')}`);
  const installations = config.installations;
  return installations === undefined ? resolved.plans : resolved.plans.map((p) => Object.freeze({ ...p, installations }));
}

// A problem's field as the user wrote it: in a PublishedResource, under `spec`.
function asWritten(p: PublishedResource, problem: string): string {
  return p.from !== undefined && /^(projection|naming|related|mutation)\b/.test(problem) ? `spec.${problem}` : problem;
}

// What can be checked without a server: templates, paths, related identifiers.
function configProblems(p: PublishedResource): string[] {
  const out: string[] = [];
  for (const [field, source] of [
    ['naming.namespace', p.naming?.namespace],
    ['naming.name', p.naming?.name],
  ] as const) {
    const r = source === undefined ? undefined : parseTemplate(source);
    if (r?.type === 'invalid') out.push(`${field}: ${r.message}`);
  }
  const selector = p.filter?.labelSelector === undefined ? undefined : parseLabelSelector(p.filter.labelSelector);
  if (selector?.type === 'invalid') out.push(`filter.labelSelector: ${JSON.stringify(p.filter?.labelSelector)} ${selector.message}`);
  const ids = new Set<string>();
  (p.related ?? []).forEach((r, j) => {
    if (ids.has(r.identifier)) out.push(`related[${j}].identifier: "${r.identifier}" is used twice`);
    ids.add(r.identifier);
    if (r.object.path !== undefined) {
      const bad = pathProblem(r.object.path);
      if (bad !== undefined) out.push(`related[${j}].object.path: ${bad}`);
      const re = r.object.regex === undefined ? undefined : referenceRegexProblem(r.object.regex);
      if (re !== undefined) out.push(`related[${j}].object.regex.${re}`);
    } else if (r.object.template !== undefined) {
      const t = parseTemplate(r.object.template);
      if (t.type === 'invalid') out.push(`related[${j}].object.template: ${t.message}`);
    } else {
      const c = compileSelector(r.object.selector);
      if (c.type === 'invalid') out.push(...c.problems.map((m) => `related[${j}].object.selector.${m}`));
    }
    const options = new Problems();
    checkRelatedOptions(r as unknown as Json, `related[${j}]`, options, 'agent');
    out.push(...options.list);
    const unsafe = relatedReferenceProblem(r.object);
    if (unsafe !== undefined) out.push(`related[${j}].object: ${unsafe}`);
    const ns = r.object.namespace === undefined ? undefined : relatedNamespaceProblem(r.object.namespace);
    if (ns !== undefined) out.push(`related[${j}].object.namespace: ${ns}`);
  });
  return out;
}

function planOf(crd: CustomResourceDefinition, p: PublishedResource, agentName: string): { type: 'plan'; plan: PublishedPlan } | { type: 'invalid'; problems: readonly string[] } {
  const choice = versionChoice(crd, p.crd, p.projection?.versions);
  if (choice.type === 'invalid') return choice;
  const version = crd.spec.versions.find((v) => v.name === choice.storage);
  const statusSubresource = version?.subresources?.status !== undefined;
  if (p.syncUp?.status === true && !statusSubresource) {
    return { type: 'invalid', problems: [`syncUp.status is true, but version ${choice.storage} of CRD ${crd.metadata.name ?? ''} has no status subresource`] };
  }
  const namespaced = crd.spec.scope !== 'Cluster';
  const scope = p.projection?.scope;
  const kcpNamespaced = scope === undefined ? namespaced : scope === 'Namespaced';
  const across = scopeProblems(p, namespaced, kcpNamespaced);
  if (across.length > 0) return { type: 'invalid', problems: across };
  const mutations = compiledMutations(p);
  if (mutations.type === 'invalid') return mutations;
  const { group, names } = projectedNames(crd, p);
  let kcpResource: ResourceDescriptor;
  try {
    kcpResource = resource({ group, version: kcpVersionName(choice.storage, p.projection), plural: names.plural, kind: names.kind, namespaced: kcpNamespaced });
  } catch (e) {
    return { type: 'invalid', problems: [`projection: ${(e as Error).message}`] };
  }
  const serviceResource = resource({ group: crd.spec.group, version: choice.storage, plural: crd.spec.names.plural, kind: crd.spec.names.kind, namespaced });
  return { type: 'plan', plan: Object.freeze({ published: p, agentName, service: serviceResource, kcp: kcpResource, publishedVersions: choice.versions, statusSubresource, mutations: mutations.mutations }) };
}

// What a change of scope (projection.scope) cannot carry yet: related objects (they live in the
// primary object's namespace on both sides), and a namespace filter on a resource that is
// cluster-scoped in kcp.
function scopeProblems(p: PublishedResource, namespaced: boolean, kcpNamespaced: boolean): string[] {
  if (namespaced === kcpNamespaced) return [];
  const change = `${kcpNamespaced ? 'Namespaced' : 'Cluster'} in kcp, ${namespaced ? 'Namespaced' : 'Cluster'} on the service cluster`;
  return [
    ...((p.related ?? []).length > 0 ? [`related: not supported yet with projection.scope ${change}: related objects live in the primary object's namespace on both sides`] : []),
    ...(!kcpNamespaced && p.filter?.namespace !== undefined ? [`filter.namespace: the resource is cluster-scoped in kcp (projection.scope), so its objects have no namespace to filter on`] : []),
  ];
}

// The entry's mutations, compiled once for the agent's run (a config from code was not checked yet).
function compiledMutations(p: PublishedResource): { type: 'compiled'; mutations: NonNullable<PublishedPlan['mutations']> } | { type: 'invalid'; problems: readonly string[] } {
  const out: { spec?: CompiledMutations; status?: CompiledMutations } = {};
  const problems: string[] = [];
  for (const side of ['spec', 'status'] as const) {
    const steps = p.mutation?.[side];
    if (steps === undefined || steps.length === 0) continue;
    const r = compileMutations(steps);
    if (r.type === 'invalid') problems.push(...r.problems.map((m) => `mutation.${side}${m}`));
    else out[side] = r.mutations;
  }
  return problems.length > 0 ? { type: 'invalid', problems } : { type: 'compiled', mutations: out };
}

// The export may not exist yet (the publisher creates it); if it does, it must be this agent's to change.
async function exportProblems(client: ClusterClient, name: string, agentName: string, projected: ReadonlyMap<string, string>): Promise<string[]> {
  const got = await client.get(apiExports, name);
  if (E.isLeft(got)) {
    if (got.left.type === 'NotFound') return [];
    throw new Error(`sync preflight: cannot read APIExport ${name} in kcp workspace ${client.cluster}: ${got.left.message}`);
  }
  const ex: APIExport = got.right;
  const owner = exportOwner(ex);
  if (owner !== undefined && owner !== agentName) return [`APIExport ${name} is kept by agent "${owner}" (annotation ${agentLabel}), not "${agentName}"; use another apiExport or agentName`];
  const out: string[] = [];
  for (const r of ex.spec?.resources ?? []) {
    const where = projected.get(`${r.name}.${r.group}`);
    if (where === undefined) continue;
    const schema = await client.get(apiResourceSchemas, r.schema);
    if (E.isLeft(schema)) {
      if (schema.left.type === 'NotFound') continue; // a dangling entry: replacing it loses nothing
      throw new Error(`sync preflight: cannot read APIResourceSchema ${r.schema} in kcp workspace ${client.cluster}: ${schema.left.message}`);
    }
    if (schema.right.metadata.labels?.[agentLabel] !== agentName) {
      out.push(`${where}: APIExport ${name} already lists ${r.name}.${r.group} with schema ${r.schema}, which agent "${agentName}" did not make; remove that entry or project to another group+resource`);
    }
  }
  return out;
}
