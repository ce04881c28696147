// Where a consumer's object lands on the service cluster (its namespace and name there), and what a
// related object is called on each side. Names come from the published resource's templates and are
// checked before anyone writes: a name the API server would refuse becomes an error value naming the
// workspace, the object and the template, so one bad object never stops the others.
import type { KubeObject } from 'rxfleet';
import type { Either } from 'rxfleet/fp';
import { E } from 'rxfleet/fp';
import { getPath } from './object-path.js';
import { rewriteReference } from './related-regex.js';
import type { SyncTemplate } from './template.js';
import { parseTemplate, renderTemplate } from './template.js';
import type { PublishedResource, RelatedReference } from './types.js';

/**
 * The default service-side namespace: one per workspace, named by its logical cluster.
 *
 * @example
 * ```ts
 * const namespace: string = published.naming?.namespace ?? defaultNamespaceTemplate;
 * ```
 */
export const defaultNamespaceTemplate = '{{ .ClusterName }}';

/**
 * The default service-side name: hashes of the consumer's namespace and name, so two objects of one
 * workspace never collide in its service namespace (api-syncagent's default, same output).
 *
 * @example
 * ```ts
 * const name: string = published.naming?.name ?? defaultNameTemplate;
 * ```
 */
export const defaultNameTemplate = '{{ .Object.metadata.namespace | sha3short }}-{{ .Object.metadata.name | sha3short }}';

/**
 * A consumer object's place on the service cluster.
 *
 * @example
 * ```ts
 * const at: ServiceName = { namespace: '1x2y3z', name: '2747cabbb481a433679f-fe3e9668e34e13e2a6cd' };
 * ```
 */
export interface ServiceName {
  /** The service-side namespace (a DNS-1123 label). */
  readonly namespace: string;
  /** The service-side name (a DNS-1123 subdomain). */
  readonly name: string;
}

/**
 * A name that cannot be made: a missing field, a value a template cannot use, or a result the API
 * server would refuse (too long, not DNS-1123). `message` names the published resource, the
 * workspace, the object and the template.
 *
 * @example
 * ```ts
 * const r = serviceName(published, '1x2y3z', obj);
 * if (r._tag === 'Left') log.error(r.left.message);
 * ```
 */
export interface NamingError {
  /** Tags the error. */
  readonly type: 'NamingError';
  /** The published resource's name. */
  readonly published: string;
  /** The workspace's logical cluster. */
  readonly cluster: string;
  /** The consumer's object (namespace `''` when cluster-scoped). */
  readonly object: {
    /** Its namespace in the workspace. */
    readonly namespace: string;
    /** Its name. */
    readonly name: string;
  };
  /** The template (or path) that failed. */
  readonly template: string;
  /** A full sentence: where, what and why. */
  readonly message: string;
}

const label = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/**
 * What keeps a string from being a DNS-1123 label (a namespace name), or `undefined` when it is one.
 *
 * @example
 * ```ts
 * dnsLabelProblem('team-a'); // undefined
 * dnsLabelProblem('Team_A'); // 'must be lowercase letters, digits and "-", starting and ending with a letter or digit'
 * ```
 * @param value - the candidate.
 * @returns the problem in words, or `undefined`.
 */
export function dnsLabelProblem(value: string): string | undefined {
  if (value === '') return 'must not be empty';
  if (value.length > 63) return `is ${value.length} characters, more than 63`;
  return label.test(value) ? undefined : 'must be lowercase letters, digits and "-", starting and ending with a letter or digit';
}

/**
 * What keeps a string from being a DNS-1123 subdomain (most object names), or `undefined`.
 *
 * @example
 * ```ts
 * dnsSubdomainProblem('db.example.dev'); // undefined
 * ```
 * @param value - the candidate.
 * @returns the problem in words, or `undefined`.
 */
export function dnsSubdomainProblem(value: string): string | undefined {
  if (value === '') return 'must not be empty';
  if (value.length > 253) return `is ${value.length} characters, more than 253`;
  return value.split('.').every((s) => label.test(s)) ? undefined : 'must be dot-separated parts of lowercase letters, digits and "-", each starting and ending with a letter or digit';
}

interface CompiledNaming {
  readonly namespace: SyncTemplate | string;
  readonly name: SyncTemplate | string;
}

// Compiled once per published resource or related reference (keyed by the config's own objects, so
// the cache lives as long as they do).
const compiled = new WeakMap<PublishedResource, CompiledNaming>();
const compiledRefs = new WeakMap<RelatedReference, SyncTemplate | string>();

function compile(source: string): SyncTemplate | string {
  const r = parseTemplate(source);
  return r.type === 'compiled' ? r.template : r.message;
}

function refTemplate(ref: RelatedReference & { readonly template: string }): SyncTemplate | string {
  let t = compiledRefs.get(ref);
  if (t === undefined) {
    t = compile(ref.template);
    compiledRefs.set(ref, t);
  }
  return t;
}

function namingOf(published: PublishedResource): CompiledNaming {
  let c = compiled.get(published);
  if (c === undefined) {
    c = { namespace: compile(published.naming?.namespace ?? defaultNamespaceTemplate), name: compile(published.naming?.name ?? defaultNameTemplate) };
    compiled.set(published, c);
  }
  return c;
}

/**
 * The service-side namespace and name of a consumer's object, from the published resource's naming
 * templates (defaults: {@link defaultNamespaceTemplate}, {@link defaultNameTemplate}). A
 * cluster-scoped object is named as if its namespace were `''`.
 *
 * @example
 * ```ts
 * const published: PublishedResource = { name: 'databases', crd: { group: 'db.example.dev', kind: 'Database' } };
 * const r = serviceName(published, '1x2y3z', { metadata: { namespace: 'default', name: 'orders' } });
 * // E.right({ namespace: '1x2y3z', name: '2747cabbb481a433679f-fe3e9668e34e13e2a6cd' })
 * ```
 * @param published - the published resource.
 * @param cluster - the workspace's logical cluster (the kcp provider's `identity.id`).
 * @param object - the consumer's object.
 * @param namespacePrefix - put before the namespace: the installation's (`KcpInstallation.namespacePrefix`); default none.
 * @returns the place, or why there is none.
 */
export function serviceName(published: PublishedResource, cluster: string, object: KubeObject, namespacePrefix = ''): Either<NamingError, ServiceName> {
  const namespace = object.metadata.namespace ?? '';
  const at = { namespace, name: object.metadata.name ?? '' };
  const view = { ...object, metadata: { ...object.metadata, namespace } };
  const naming = namingOf(published);
  const fail = (what: 'namespace' | 'name', why: string): Either<NamingError, ServiceName> => {
    const template = published.naming?.[what] ?? (what === 'namespace' ? defaultNamespaceTemplate : defaultNameTemplate);
    const object = at.namespace === '' ? at.name : `${at.namespace}/${at.name}`;
    const message = `published "${published.name}", workspace "${cluster}", object ${object}: the service-side ${what} from template ${JSON.stringify(template)} ${why}`;
    return E.left(Object.freeze({ type: 'NamingError' as const, published: published.name, cluster: cluster, object: at, template, message }));
  };
  const out: Record<'namespace' | 'name', string> = { namespace: '', name: '' };
  for (const what of ['namespace', 'name'] as const) {
    const template = naming[what];
    if (typeof template === 'string') return fail(what, `does not compile: ${template}`);
    const r = renderTemplate(template, { cluster: cluster, object: view });
    if (r.type === 'missing') return fail(what, `needs ${r.field}, which the object does not have`);
    if (r.type === 'invalid') return fail(what, `cannot be rendered: ${r.message}`);
    const value = what === 'namespace' ? namespacePrefix + r.value : r.value;
    const problem = what === 'namespace' ? dnsLabelProblem(value) : dnsSubdomainProblem(value);
    if (problem !== undefined) return fail(what, `gives ${JSON.stringify(value)}${value === r.value ? '' : ` (with the installation's prefix)`}, which ${problem} (a ${what === 'namespace' ? 'DNS-1123 label' : 'DNS-1123 subdomain'})`);
    out[what] = value;
  }
  return E.right(Object.freeze({ namespace: out.namespace, name: out.name }));
}

/**
 * A related object's name on one side: found, not set yet (no error: nothing to sync yet), or a
 * value that cannot name an object.
 *
 * @example
 * ```ts
 * const r: RelatedNameResult = relatedName({ path: 'spec.connectionSecretName' }, '1x2y3z', primary);
 * if (r.type === 'named') console.log(r.name);
 * ```
 */
export type RelatedNameResult =
  | {
      /** Found. */
      readonly type: 'named';
      /** The object's name. */
      readonly name: string;
    }
  | {
      /** The field (or a template's field) is not set yet. */
      readonly type: 'missing';
      /** The path that is not set. */
      readonly field: string;
    }
  | {
      /** The value cannot name an object. */
      readonly type: 'invalid';
      /** Why, in a sentence. */
      readonly message: string;
    };

/**
 * A related object's name on one side, read from that side's primary object by the related
 * resource's path or template. A field not set (yet) is `missing`, not an error: the service's
 * operator may fill it in later.
 *
 * @example
 * ```ts
 * relatedName({ path: 'spec.connectionSecretName' }, '1x2y3z', { metadata: { name: 'orders' }, spec: { connectionSecretName: 'orders-conn' } });
 * // { type: 'named', name: 'orders-conn' }
 * ```
 * @param ref - the related resource's `object`.
 * @param cluster - the workspace's logical cluster (for `.ClusterName` in a template).
 * @param primary - the primary object on the side being named.
 * @returns the name, or which field is missing, or why the value is not a usable name.
 */
export function relatedName(
  ref: RelatedReference,
  cluster: string,
  primary: KubeObject,
): RelatedNameResult {
  let value: string;
  if (ref.selector !== undefined) return { type: 'invalid', message: 'a selector names no single object' };
  if (ref.path !== undefined) {
    const v = getPath(primary, ref.path);
    if (v === undefined || v === null || v === '') return { type: 'missing', field: ref.path };
    if (typeof v !== 'string') return { type: 'invalid', message: `${ref.path} is not a string` };
    const rewritten = ref.regex === undefined ? { type: 'value' as const, value: v } : rewriteReference(ref.regex, v);
    if (rewritten.type === 'invalid') return rewritten;
    if (rewritten.value === '') return { type: 'missing', field: ref.path };
    value = rewritten.value;
  } else {
    const t = refTemplate(ref);
    if (typeof t === 'string') return { type: 'invalid', message: t };
    const r = renderTemplate(t, { cluster: cluster, object: primary });
    if (r.type !== 'rendered') return r;
    if (r.value === '') return { type: 'missing', field: ref.template };
    value = r.value;
  }
  const problem = dnsSubdomainProblem(value);
  return problem === undefined ? { type: 'named', name: value } : { type: 'invalid', message: `related name ${JSON.stringify(value)} ${problem}` };
}
