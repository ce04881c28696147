// When a Cluster API cluster can be engaged: once its control plane is initialised, which v1beta2
// says in status.initialization and v1beta1 in a condition or status.controlPlaneReady.
import type { KubeObject } from '../../core/object.js';

interface CapiStatus {
  readonly initialization?: { readonly controlPlaneInitialized?: boolean };
  readonly controlPlaneReady?: boolean;
  readonly conditions?: readonly { readonly type?: string; readonly status?: string }[];
}

/**
 * Whether a Cluster API `Cluster`'s control plane is initialised: `status.initialization.controlPlaneInitialized`
 * (v1beta2), else the `ControlPlaneInitialized` condition or `status.controlPlaneReady` (v1beta1).
 *
 * @example
 * ```ts
 * controlPlaneInitialized({ metadata: { name: 'prod' }, status: { initialization: { controlPlaneInitialized: true } } }); // true
 * ```
 * @param cluster - the Cluster object.
 * @returns true once the control plane is initialised.
 */
export function controlPlaneInitialized(cluster: KubeObject): boolean {
  const s = (cluster.status ?? {}) as CapiStatus;
  if (s.initialization?.controlPlaneInitialized === true || s.controlPlaneReady === true) return true;
  return (s.conditions ?? []).some((c) => c.type === 'ControlPlaneInitialized' && c.status === 'True');
}
