// The desired set a Cluster API or ClusterProfile provider computes from a listing, through the
// providers' own per-object path (the join of Clusters with their kubeconfig Secrets, each object's
// candidate), for tests that read candidates without a server.
import { of } from 'rxjs';
import type { KubeObject, Secret } from '../../src/core/object.js';
import { clusterName } from '../../src/core/cluster.js';
import type { KubeconfigTrust } from '../../src/client/index.js';
import type { Desired, DesiredChange } from '../../src/providers/internal/candidates.js';
import { desiredPerObject } from '../../src/providers/internal/desired-per-object.js';
import type { CapiCluster } from '../../src/providers/cluster-api/desired.js';
import { capiCandidate, joinKubeconfigSecrets } from '../../src/providers/cluster-api/desired.js';
import { profileCandidate } from '../../src/providers/cluster-profiles/desired.js';
import type { AccessProviderConfig } from '../../src/providers/cluster-profiles/profile.js';

/** The desired set of Cluster objects and Secrets (both by `namespace/name`) once both are listed. */
export function capiDesired(capi: ReadonlyMap<string, KubeObject>, kubeconfigs: ReadonlyMap<string, Secret>, isReady: (c: KubeObject) => boolean, key: string, trust: KubeconfigTrust = {}): Desired {
  let desired: Desired = new Map();
  joinKubeconfigSecrets(of({ type: 'listed', all: capi }), of({ type: 'listed', all: kubeconfigs }))
    .pipe(desiredPerObject((j: CapiCluster, id: string) => capiCandidate(j, id, clusterName(id), { isReady, key, trust })))
    .subscribe((d: DesiredChange) => {
      if (d.type === 'all') desired = d.desired;
    });
  return desired;
}

/** The desired set of ClusterProfiles (by `namespace/name`) judged at `now`. */
export function profileDesired(profiles: ReadonlyMap<string, KubeObject>, providers: readonly AccessProviderConfig[], isReady: (p: KubeObject, now: number) => boolean, now: number): Desired {
  return new Map([...profiles].map(([id, p]) => [clusterName(id), profileCandidate(p, id, clusterName(id), { providers, isReady, now })]));
}
