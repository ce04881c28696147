// The in-memory fleet against a real kube-apiserver: the SAME assertion functions
// (fake-fleet-assertions.ts) run on both, so what the fake promises is what a server does.
// Known differences are listed in docs/testing.md ("Where the in-memory fleet differs") and
// checked in the last block below, on the fake only, so that the list stays true.
import { beforeAll, describe, expect, it } from 'vitest';
import { E } from '../../src/fp/index.js';
import { configMaps } from '../../src/index.js';
import { inMemoryFleet } from '../../src/testing/index.js';
import type { ParityEnv } from './fake-fleet-assertions.js';
import { parityAssertions, parityDifferences } from './fake-fleet-assertions.js';
import { kubeApiserverTarget, widgetsCrd } from './targets.js';

interface Backend {
  readonly name: string;
  env(): Promise<ParityEnv>;
  /** What this backend shows for each known difference. */
  readonly shows: { readonly [K in keyof typeof parityDifferences]: string };
}

const backends: readonly Backend[] = [
  {
    name: 'the in-memory fleet',
    async env() {
      const client = inMemoryFleet({ clusters: { parity: [] } }).cluster('parity').client;
      return { client, namespace: 'default', widgets: await widgetsCrd(client, 'default') };
    },
    shows: { strategicPatchOfCustomResource: 'patched' },
  },
  {
    name: 'a real kube-apiserver',
    async env() {
      const sb = await kubeApiserverTarget.sandbox();
      return { client: sb.client, namespace: sb.namespace, widgets: await widgetsCrd(sb.client, sb.namespace) };
    },
    shows: { strategicPatchOfCustomResource: '415' },
  },
];

describe.each(backends)('API-server semantics on $name', (backend) => {
  let env: ParityEnv;
  beforeAll(async () => {
    env = await backend.env();
  });

  it('merges server-side applies by field manager, with conflicts, force and removal', () => parityAssertions.ssaTwoManagers(env));
  it('writes status only through the status subresource', () => parityAssertions.statusSubresource(env));
  it('refuses writes with a stale resourceVersion', () => parityAssertions.resourceVersionConflict(env));
  it('counts spec changes in metadata.generation', () => parityAssertions.generation(env));
  it('holds a deleted object while it has finalizers, and deletes it with the last one', () => parityAssertions.finalizers(env));
  it('applies metadata.finalizers as a set shared by managers', () => parityAssertions.finalizerSet(env));

  // Known differences: both backends run the same steps, each must show what docs/testing.md says.
  it('differs: a strategic merge patch of a custom resource (refused by a server, a merge patch in the fake)', async () => {
    expect(await parityDifferences.strategicPatchOfCustomResource(env)).toBe(backend.shows.strategicPatchOfCustomResource);
  });
});

describe('where the in-memory fleet differs from a real server (docs/testing.md)', () => {
  it('accepts objects of any resource and in any namespace, with no schema, no defaults and no admission', async () => {
    const client = inMemoryFleet({ clusters: { c: [] } }).cluster('c').client;
    const created = await client.create(configMaps, { metadata: { name: 'a', namespace: 'no-such-namespace' }, data: { n: 1 as unknown as string } });
    expect(E.isRight(created)).toBe(true);
  });
});
