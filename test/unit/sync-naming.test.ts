// Where a consumer's object lands on the service cluster, what related objects are called, and the
// agent's label names. Expected hashes were computed outside this code with `node -e` crypto
// (sha3-256 of "default" and "orders"), and one vector is api-syncagent's own.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/core/object.js';
import type { Either } from '../../src/internal/fp.js';
import { E } from '../../src/internal/fp.js';
import { agentLabel, agentLabels, agentSelector, syncClusterAnnotation, defaultAgentName, publishedLabel, relatedLabel, syncFinalizer } from '../../packages/sync-agent/src/labels.js';
import type { NamingError, ServiceName } from '../../packages/sync-agent/src/naming.js';
import { dnsLabelProblem, dnsSubdomainProblem, relatedName, serviceName } from '../../packages/sync-agent/src/naming.js';
import type { PublishedResource } from '../../packages/sync-agent/src/types.js';

const databases: PublishedResource = { name: 'databases', crd: { group: 'db.example.dev', kind: 'Database' } };
const orders: KubeObject = { metadata: { namespace: 'default', name: 'orders', uid: 'u-1' }, spec: { connectionSecretName: 'orders-conn' } };

function named(r: Either<NamingError, ServiceName>): ServiceName {
  if (E.isLeft(r)) throw new Error(`expected a name: ${r.left.message}`);
  return r.right;
}

function failed(r: Either<NamingError, ServiceName>): NamingError {
  if (E.isRight(r)) throw new Error(`expected an error, got ${JSON.stringify(r.right)}`);
  return r.left;
}

function withNaming(naming: PublishedResource['naming']): PublishedResource {
  return naming === undefined ? databases : { ...databases, naming };
}

describe('service-side names', () => {
  it('should place default/orders in the workspace namespace under hashes of its namespace and name', () => {
    // sha3-256("default")[:20] = 2747cabbb481a433679f, sha3-256("orders")[:20] = fe3e9668e34e13e2a6cd (node -e crypto).
    expect(named(serviceName(databases, '2x5fyzm1e8tcsbcs', orders))).toEqual({ namespace: '2x5fyzm1e8tcsbcs', name: '2747cabbb481a433679f-fe3e9668e34e13e2a6cd' });
  });

  it('should give the same name as api-syncagent for its own test vector', () => {
    const obj: KubeObject = { metadata: { namespace: 'objnamespace', name: 'objname' } };
    expect(named(serviceName(databases, 'testcluster', obj))).toEqual({ namespace: 'testcluster', name: '2928c2aa0e510f017f07-73d08a1ba188f1340dae' });
  });

  it('should keep two workspaces apart when they use the same namespace and name', () => {
    const a = named(serviceName(databases, 'wsa', orders));
    const b = named(serviceName(databases, 'wsb', orders));
    expect(a.namespace).not.toBe(b.namespace);
    expect(named(serviceName(databases, 'wsa', { metadata: { namespace: 'other', name: 'orders' } })).name).not.toBe(a.name);
  });

  it('should use custom templates and fixed names', () => {
    expect(named(serviceName(withNaming({ namespace: 'tenants', name: '{{ .ClusterName }}-{{ .Object.metadata.name }}' }), 'ws1', orders))).toEqual({ namespace: 'tenants', name: 'ws1-orders' });
    expect(named(serviceName(withNaming({ name: '{{ sha3short .Object.metadata.name 8 }}' }), 'ws1', orders))).toEqual({ namespace: 'ws1', name: 'fe3e9668' });
  });

  it('should name a cluster-scoped object as if its namespace were empty', () => {
    // sha3-256("")[:20] = a7ffc6f8bf1ed76651c1 (the FIPS 202 empty-string vector).
    expect(named(serviceName(databases, 'ws1', { metadata: { name: 'orders' } }))).toEqual({ namespace: 'ws1', name: 'a7ffc6f8bf1ed76651c1-fe3e9668e34e13e2a6cd' });
  });

  it('should refuse a name longer than 253 characters, naming the workspace, the object and the template', () => {
    const published = withNaming({ name: '{{ .Object.metadata.name }}-{{ .Object.metadata.name }}' });
    const long = 'n'.repeat(200);
    const e = failed(serviceName(published, 'ws1', { metadata: { namespace: 'default', name: long } }));
    expect(e).toMatchObject({ type: 'NamingError', published: 'databases', cluster: 'ws1', object: { namespace: 'default', name: long }, template: published.naming?.name });
    expect(e.message).toBe(
      `published "databases", workspace "ws1", object default/${long}: the service-side name from template "{{ .Object.metadata.name }}-{{ .Object.metadata.name }}" gives "${long}-${long}", which is 401 characters, more than 253 (a DNS-1123 subdomain)`,
    );
  });

  it('should refuse a namespace that is not a DNS-1123 label of at most 63 characters', () => {
    const tooLong = failed(serviceName(withNaming({ namespace: '{{ .ClusterName }}-{{ sha3short .Object.metadata.name 64 }}' }), 'ws1', orders));
    expect(tooLong.message).toContain('the service-side namespace from template "{{ .ClusterName }}-{{ sha3short .Object.metadata.name 64 }}" gives');
    expect(tooLong.message).toContain('which is 68 characters, more than 63 (a DNS-1123 label)');
    const dotted = failed(serviceName(withNaming({ namespace: '{{ .Object.metadata.name }}' }), 'ws1', { metadata: { namespace: 'default', name: 'a.b' } }));
    expect(dotted.message).toContain('gives "a.b", which must be lowercase letters, digits and "-"');
  });

  it('should refuse a template whose field is missing or cannot be used', () => {
    const missing = failed(serviceName(withNaming({ name: '{{ .Object.spec.tier }}' }), 'ws1', orders));
    expect(missing.message).toBe('published "databases", workspace "ws1", object default/orders: the service-side name from template "{{ .Object.spec.tier }}" needs .Object.spec.tier, which the object does not have');
    const broken = failed(serviceName(withNaming({ name: '{{ .Nope }}' }), 'ws1', orders));
    expect(broken.message).toContain('does not compile');
  });
});

describe('related object names', () => {
  it('should read a path on the primary, and treat an unset field as not yet', () => {
    expect(relatedName({ path: 'spec.connectionSecretName' }, 'ws1', orders)).toEqual({ type: 'named', name: 'orders-conn' });
    expect(relatedName({ path: 'spec.other' }, 'ws1', orders)).toEqual({ type: 'missing', field: 'spec.other' });
    expect(relatedName({ path: 'spec.connectionSecretName' }, 'ws1', { metadata: {}, spec: { connectionSecretName: '' } })).toEqual({ type: 'missing', field: 'spec.connectionSecretName' });
    expect(relatedName({ path: 'metadata' }, 'ws1', orders)).toEqual({ type: 'invalid', message: 'metadata is not a string' });
  });

  it('should render a template on the primary and check the result is a valid name', () => {
    expect(relatedName({ template: '{{ .Object.metadata.name }}-credentials' }, 'ws1', orders)).toEqual({ type: 'named', name: 'orders-credentials' });
    expect(relatedName({ template: '{{ .Object.spec.x }}' }, 'ws1', orders)).toEqual({ type: 'missing', field: '.Object.spec.x' });
    expect(relatedName({ template: 'Bad_{{ .ClusterName }}' }, 'ws1', orders)).toMatchObject({ type: 'invalid' });
  });
});

describe('DNS-1123 checks', () => {
  it('should accept labels and subdomains and say why others fail', () => {
    expect(dnsLabelProblem('team-a')).toBeUndefined();
    expect(dnsLabelProblem('-a')).toContain('starting and ending with a letter or digit');
    expect(dnsLabelProblem('a'.repeat(64))).toBe('is 64 characters, more than 63');
    expect(dnsSubdomainProblem('db.example.dev')).toBeUndefined();
    expect(dnsSubdomainProblem('db..dev')).toContain('dot-separated parts');
    expect(dnsSubdomainProblem('')).toBe('must not be empty');
  });
});

describe('sync labels', () => {
  it('should use the sync.rxfleet.dev names of the plan', () => {
    expect([agentLabel, publishedLabel, relatedLabel, syncClusterAnnotation]).toEqual(['sync.rxfleet.dev/agent', 'sync.rxfleet.dev/published', 'sync.rxfleet.dev/related', 'sync.rxfleet.dev/cluster']);
    expect(syncFinalizer(defaultAgentName)).toBe('sync.rxfleet.dev/rxfleet-sync');
    expect(agentLabels('a1', 'databases')).toEqual({ 'sync.rxfleet.dev/agent': 'a1', 'sync.rxfleet.dev/published': 'databases' });
    expect(Object.isFrozen(agentLabels('a1', 'databases'))).toBe(true);
    expect(agentSelector('a1', 'databases')).toBe('sync.rxfleet.dev/agent=a1,sync.rxfleet.dev/published=databases');
  });
});
