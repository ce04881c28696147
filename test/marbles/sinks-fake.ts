// A fake WriteClient for marble tests of the sinks: each call is answered by a function returning
// a (cold) observable, so every wait the sinks make runs in the TestScheduler's virtual time.
import type { Observable } from 'rxjs';
import { throwError } from 'rxjs';
import type { Status } from '../../src/client/index.js';
import { kubeError } from '../../src/client/index.js';
import { E } from '../../src/fp/index.js';
import type { ClusterName, KubeError, KubeObject, ObjectList, ResourceDescriptor } from '../../src/index.js';
import { clusterName } from '../../src/index.js';
import type { Either } from '../../src/internal/fp.js';
import type { SinkCluster, SinkClusters, WriteClient } from '../../src/sinks/index.js';

type Answer<T> = Observable<Either<KubeError, T>>;

export interface FakeCalls {
  get?: (name: string) => Answer<KubeObject>;
  listAll?: (selector: string | undefined) => Answer<ObjectList>;
  create?: (obj: KubeObject) => Answer<KubeObject>;
  update?: (obj: KubeObject) => Answer<KubeObject>;
  apply?: (obj: KubeObject) => Answer<KubeObject>;
  patch?: (name: string, patch: unknown) => Answer<KubeObject>;
  delete?: (name: string) => Answer<KubeObject | Status>;
}

function need<F>(f: F | undefined, what: string): F {
  if (f === undefined) throw new Error(`the fake client was not expecting ${what}`);
  return f;
}

// The casts narrow KubeObject answers to the caller's T: a fake answers with whatever the test says.
export function fakeClient(calls: FakeCalls): WriteClient {
  return {
    get: <T extends KubeObject>(_r: ResourceDescriptor<T>, name: string) => need(calls.get, 'get')(name) as Answer<T>,
    listAll: <T extends KubeObject>(_r: ResourceDescriptor<T>, opts?: { labelSelector?: string }) =>
      need(calls.listAll, 'listAll')(opts?.labelSelector) as Answer<ObjectList<T>>,
    create: <T extends KubeObject>(_r: ResourceDescriptor<T>, obj: T) => need(calls.create, 'create')(obj) as Answer<T>,
    update: <T extends KubeObject>(_r: ResourceDescriptor<T>, obj: T) => need(calls.update, 'update')(obj) as Answer<T>,
    apply: <T extends KubeObject>(_r: ResourceDescriptor<T>, obj: KubeObject) => need(calls.apply, 'apply')(obj) as Answer<T>,
    patch: <T extends KubeObject>(_r: ResourceDescriptor<T>, name: string, patch: unknown) => need(calls.patch, 'patch')(name, patch) as Answer<T>,
    delete: <T extends KubeObject>(_r: ResourceDescriptor<T>, name: string) => need(calls.delete, 'delete')(name) as Answer<T | Status>,
  };
}

/** A client whose every call fails the way a broken client would: by erroring the observable. */
export function throwingClient(): WriteClient {
  const boom = (): Observable<never> => throwError(() => new Error('socket exploded'));
  return { get: boom, listAll: boom, create: boom, update: boom, apply: boom, patch: boom, delete: boom };
}

export function fakeFleet(clients: Readonly<Record<string, WriteClient>>): SinkClusters {
  const all: SinkCluster[] = Object.entries(clients).map(([name, client]) => ({ name: clusterName(name), client }));
  return { get: (name: ClusterName) => all.find((c) => c.name === name), clusters: () => all };
}

export function err(tag: KubeError['type'], cluster: string, fields: Pick<KubeError, 'code' | 'retryAfterSeconds' | 'details'> = {}): KubeError {
  return kubeError(tag, clusterName(cluster), `fake ${tag}`, fields);
}

export const right = E.right;
export const left = E.left;
