// The Rollout API of the fanout-status example: a spec (image, replicas, which member clusters)
// written on the hub, copied to members, and a per-cluster status gathered back on the hub.
import type { ClusterClient } from 'rxfleet/client';
import type { KubeObject } from 'rxfleet';
import { customResourceDefinitions, isLeft, isRight, resource } from 'rxfleet';
import type { CustomResourceDefinition } from 'rxfleet/resources';

export interface RolloutSpec {
  readonly image: string;
  readonly replicas?: number;
  /** Member clusters whose labels include all of these receive a copy (hub only). */
  readonly clusterSelector?: { readonly matchLabels?: Readonly<Record<string, string>> };
}

/** One member's view, as aggregated on the hub. */
export interface ClusterStatus {
  readonly cluster: string;
  readonly phase: string;
  readonly image?: string;
}

export interface RolloutStatus {
  /** On a member copy: what the member's workload controller reports. */
  readonly phase?: string;
  readonly image?: string;
  readonly observedGeneration?: number;
  /** On the hub: one entry per targeted member, and the summary. */
  readonly clusters?: readonly ClusterStatus[];
  readonly ready?: number;
  readonly total?: number;
}

export interface Rollout extends KubeObject {
  readonly spec: RolloutSpec;
  readonly status?: RolloutStatus;
}

export const GROUP = 'demo.rxfleet.dev';
export const rollouts = resource<Rollout>({ group: GROUP, version: 'v1', plural: 'rollouts', kind: 'Rollout', namespaced: true });

/** The CRD, with a status subresource so spec and status writers never race. */
export const rolloutCrd: CustomResourceDefinition = {
  metadata: { name: `rollouts.${GROUP}` },
  spec: {
    group: GROUP,
    scope: 'Namespaced',
    names: { plural: 'rollouts', singular: 'rollout', kind: 'Rollout', listKind: 'RolloutList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
              status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
            },
          },
        },
      },
    ],
  },
};

/** Installs the CRD and waits until the API serves it (examples and tests only: real controllers ship CRDs separately). */
export async function installRolloutCrd(client: ClusterClient, timeoutMs = 60_000): Promise<void> {
  const applied = await client.apply(customResourceDefinitions, rolloutCrd, { fieldManager: 'fanout-status-installer', force: true });
  if (isLeft(applied)) throw new Error(applied.left.message);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await client.list(rollouts, { limit: 1 });
    if (isRight(r)) return;
    if (Date.now() > deadline) throw new Error(`the Rollout CRD is not served after ${timeoutMs} ms: ${r.left.message}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
