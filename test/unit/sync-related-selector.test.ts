// Related selectors (issue 28 item 4): matchExpressions beside the matchLabels templates, in both
// configuration forms, and the service-side names of objects an origin-kcp selector finds (derived
// from the consumer object, never from a name the consumer writes).
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/index.js';
import { parseSyncConfig, syncConfigProblems } from '../../packages/sync-agent/src/config.js';
import { compileSelector, selects, selectorLabels } from '../../packages/sync-agent/src/related-selector.js';
import { selectedServiceName } from '../../packages/sync-agent/src/related-selected.js';
import type { RelatedResource, RelatedSelector } from '../../packages/sync-agent/src/types.js';
import { plan } from './sync-fixture.js';

const obj = (labels: Record<string, string>): KubeObject => ({ metadata: { name: 'x', namespace: 'default', labels } });
const copy: KubeObject = { metadata: { name: 'c1', namespace: 'shared', uid: 'u1' } };
const consumer: KubeObject = { metadata: { name: 'orders', namespace: 'default' } };
const compiled = (s: RelatedSelector) => {
  const c = compileSelector(s);
  if (c.type === 'invalid') throw new Error(c.problems.join('; '));
  return c.selector;
};

describe('matchExpressions in a related selector', () => {
  it('every requirement must hold beside the rendered labels', () => {
    const c = compiled({ matchLabels: { db: '{{ .RemoteObject.metadata.name }}' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['gold', 'silver'] }, { key: 'internal', operator: 'DoesNotExist' }], rewrite: { template: '{{ .Value }}' } });
    const wanted = selectorLabels(c, { cluster: 'ws', copy, consumer });
    if (typeof wanted !== 'object') throw new Error('not rendered');
    expect(selects(c, wanted, obj({ db: 'orders', tier: 'gold' }))).toBe(true);
    expect(selects(c, wanted, obj({ db: 'orders', tier: 'bronze' }))).toBe(false);
    expect(selects(c, wanted, obj({ db: 'orders', tier: 'gold', internal: 'yes' }))).toBe(false);
    expect(selects(c, wanted, obj({ db: 'billing', tier: 'gold' }))).toBe(false);
  });

  it('a selector of expressions only is accepted, and proves nothing by itself on the service side', () => {
    const c = compiled({ matchExpressions: [{ key: 'kind', operator: 'Exists' }], rewrite: { template: '{{ .Value }}' } });
    expect(c.namesCopy).toBe(false);
    expect(selects(c, {}, obj({ kind: 'token' }))).toBe(true);
    expect(selects(c, {}, obj({}))).toBe(false);
  });

  it('an empty selector and a bad requirement are refused, each at its path', () => {
    expect(compileSelector({ matchLabels: {}, rewrite: { template: '{{ .Value }}' } })).toEqual({ type: 'invalid', problems: ['matchLabels: must not be empty unless matchExpressions is given (an empty selector matches every object)'] });
    const bad = compileSelector({ matchLabels: { a: 'b' }, matchExpressions: [{ key: 'tier', operator: 'In', values: [] }], rewrite: { template: '{{ .Value }}' } });
    expect(bad).toEqual({ type: 'invalid', problems: ['matchExpressions[0].values: In needs at least one value'] });
  });

  it('both configuration forms accept matchExpressions and refuse bad ones with their path', () => {
    const selector = { matchLabels: { db: '{{ .LocalObject.metadata.name }}' }, matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['internal'] }] };
    const own = parseSyncConfig({ apiExport: 'x.example.dev', published: [{ name: 'db', crd: { group: 'db.example.dev', kind: 'Database' }, related: [{ identifier: 't', origin: 'kcp', resource: 'secrets', object: { selector: { ...selector, rewrite: { template: '{{ .Value }}' } } } }] }] });
    expect(own.published[0]?.related?.[0]?.object.selector).toEqual({ ...selector, rewrite: { template: '{{ .Value }}' } });
    const pr = { apiVersion: 'syncagent.kcp.io/v1alpha1', kind: 'PublishedResource', metadata: { name: 'p' }, spec: { resource: { apiGroup: 'db.example.dev', kind: 'Database', versions: ['v1'] }, related: [{ identifier: 't', origin: 'service', resource: 'secrets', object: { selector: { ...selector, rewrite: { regex: { pattern: '^(.*)$', replacement: '$1' } } } } }] } };
    expect(parseSyncConfig({ apiExport: 'x.example.dev', published: [pr] }).published[0]?.related?.[0]?.object.selector).toEqual({ ...selector, rewrite: { regex: { pattern: '^(.*)$', replacement: '$1' } } });
    const problems = syncConfigProblems({ apiExport: 'x.example.dev', published: [{ name: 'db', crd: { group: 'db.example.dev', kind: 'Database' }, related: [{ identifier: 't', origin: 'kcp', resource: 'secrets', object: { selector: { matchExpressions: [{ key: 'tier', operator: 'Within', values: ['a'] }], rewrite: { template: '{{ .Value }}' } } } }] }] });
    expect(problems).toEqual(['published[0].related[0].object.selector.matchExpressions[0].operator: "Within" is not an operator: In, NotIn, Exists or DoesNotExist']);
  });
});

describe('service-side names of objects an origin-kcp selector finds', () => {
  const related: RelatedResource = { identifier: 'cfg', origin: 'kcp', resource: 'leases', group: 'coordination.k8s.io', object: { selector: { matchLabels: { a: 'b' }, rewrite: { template: '{{ .Value }}' } } } };
  const at = { namespace: 'default', name: 'orders' };

  it('differ for every workspace, namespace, object and found name, and are stable', () => {
    const name = selectedServiceName(plan, related, 'ws-a', at, 'cfg-1');
    expect(name).toMatch(/^[0-9a-f]{20}-[0-9a-f]{8}-[0-9a-f]{8}$/);
    expect(selectedServiceName(plan, related, 'ws-a', at, 'cfg-1')).toBe(name);
    const others = [
      selectedServiceName(plan, related, 'ws-b', at, 'cfg-1'),
      selectedServiceName(plan, related, 'ws-a', { ...at, namespace: 'team' }, 'cfg-1'),
      selectedServiceName(plan, related, 'ws-a', { ...at, name: 'billing' }, 'cfg-1'),
      selectedServiceName(plan, related, 'ws-a', at, 'cfg-2'),
      selectedServiceName(plan, { ...related, identifier: 'other' }, 'ws-a', at, 'cfg-1'),
    ];
    expect(new Set([name, ...others]).size).toBe(6);
  });
});
