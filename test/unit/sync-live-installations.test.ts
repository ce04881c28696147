// The live agent's other installations between two checks of the PublishedResources: an installation
// checked gets every plan; one whose kcp could not be read keeps the plans it was last checked with,
// minus those no longer published, and gets nothing it was never checked with; the next check is
// scheduled after 1 s, doubling to 60 s, and not at all once every installation was checked.
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { liveInstallations } from '../../packages/sync-agent/src/live-installations.js';
import type { PublishedPlan } from '../../packages/sync-agent/src/plan.js';
import type { Accepted } from '../../packages/sync-agent/src/published-live.js';
import { plan } from './sync-fixture.js';

const logger = pino({ level: 'silent' });
const options = {
  config: { apiExport: 'databases.example.dev', published: [], installations: [{ name: 'eu', kubeconfig: 'eu.kubeconfig', namespacePrefix: 'eu-' }, { name: 'us', kubeconfig: 'us.kubeconfig', namespacePrefix: 'us-' }] },
  kcp: { file: 'kcp.kubeconfig' },
  service: { file: 'service.kubeconfig' },
};
const named = (name: string, shortName = name): PublishedPlan => ({ ...plan, published: { ...plan.published, name, projection: { ...plan.published.projection, shortNames: [shortName] } } });
const accepted = (plans: readonly PublishedPlan[], unchecked: Record<string, string> = {}): Accepted => ({ plans, verdicts: [], unchecked: new Map(Object.entries(unchecked)) });
const names = (ps: readonly PublishedPlan[] | undefined): readonly (readonly string[])[] => (ps ?? []).map((p) => [p.published.name, ...(p.published.projection?.shortNames ?? [])]);

describe('sync agent, live: the plans of each installation', () => {
  it('gives a checked installation every plan, and one not checked what it was last checked with, still published', () => {
    const others = liveInstallations(options, logger);
    const first = others.plansAfter(accepted([named('a'), named('b')]));
    expect(names(first.get('eu'))).toEqual([['a', 'a'], ['b', 'b']]);
    expect(names(first.get('us'))).toEqual([['a', 'a'], ['b', 'b']]);

    // eu cannot be read: b deleted, a changed, c new. eu keeps a as it was, loses b, does not get c.
    const second = others.plansAfter(accepted([named('a', 'changed'), named('c')], { eu: 'connect ECONNREFUSED' }));
    expect(names(second.get('eu'))).toEqual([['a', 'a']]);
    expect(names(second.get('us'))).toEqual([['a', 'changed'], ['c', 'c']]);

    // eu answers again: it gets the set.
    const third = others.plansAfter(accepted([named('a', 'changed'), named('c')]));
    expect(names(third.get('eu'))).toEqual([['a', 'changed'], ['c', 'c']]);
  });

  it('gives an installation never checked nothing', () => {
    const others = liveInstallations(options, logger);
    expect(names(others.plansAfter(accepted([named('a')], { us: 'headers timeout' })).get('us'))).toEqual([]);
  });

  it('checks again after 1 s, doubling to 60 s, and not once every installation was checked', () => {
    const others = liveInstallations(options, logger);
    const delays = Array.from({ length: 8 }, () => others.recheckDelayMs(false));
    expect(delays).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000]);
    expect(others.recheckDelayMs(true)).toBeUndefined();
    expect(others.recheckDelayMs(false)).toBe(1_000);
  });
});
