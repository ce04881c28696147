// Watch sources that stand in for the API in the run() unit tests: per cluster, the list answer a
// test chose (objects, a 404, or a list held back), then a watch that stays open.
import type { Observable } from 'rxjs';
import { NEVER, of } from 'rxjs';
import { kubeError } from '../../src/client/index.js';
import { E } from '../../src/fp/index.js';
import type { ConfigMap, KubeError, KubeObject, ObjectList, ResourceDescriptor } from '../../src/index.js';
import { clusterName } from '../../src/index.js';
import type { ListerWatcher } from '../../src/streams/index.js';

/** A cluster's list answer: `notFound` (a 404, the resource not served) or the answer itself. */
export type ListAnswer = 'notFound' | Observable<E.Either<KubeError, ObjectList>>;

/** A ConfigMap in `default`, uid `u-<name>`. */
export const cm = (name: string): ConfigMap => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default', uid: `u-${name}`, resourceVersion: '1' } });

/** A list answer with these objects. */
export const listOf = (...items: ConfigMap[]): Observable<E.Either<KubeError, ObjectList>> => of(E.right({ metadata: { resourceVersion: '1' }, items }));

/** A source per cluster: the list answer the test chose (an empty list if none), then a watch that stays open. */
export function sources(answers: Record<string, ListAnswer>) {
  return <T extends KubeObject>(cluster: { name: string }, _r: ResourceDescriptor<T>): ListerWatcher<T> => ({
    list: () => {
      const a = answers[cluster.name] ?? listOf();
      if (a === 'notFound') return of(E.left(kubeError('NotFound', clusterName(cluster.name), 'the server could not find the requested resource', { code: 404 })));
      return a as Observable<E.Either<KubeError, ObjectList<T>>>;
    },
    watch: () => NEVER,
  });
}
