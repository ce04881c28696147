// `rxfleet rbac` reads a program's controllers without running them: while the CLI holds a capture
// open, `main` hands over the controller it was given (and its options) and returns at once. The
// hook lives on a global symbol so a program importing another copy of rxfleet is captured too.
import type { ClusterSelector, WatchDeclaration, WriteDeclaration } from './controller.js';
import type { ResourceDescriptor } from '../core/resource.js';

/**
 * What `rxfleet rbac` reads of a controller: the structural part of `Controller` it derives roles
 * from (any `Controller<T>` is one).
 *
 * @example
 * ```ts
 * const d: DeclaredController = { name: 'hello', resource: configMaps, select: { namespace: 'default' } };
 * ```
 */
export interface DeclaredController {
  /** The controller's name. */
  readonly name: string;
  /** The primary resource. */
  readonly resource: ResourceDescriptor;
  /** The primary watch's namespace and clusters. */
  readonly select?: {
    /** The namespace watched; absent: every namespace. */
    readonly namespace?: string;
    /** The clusters watched; absent: every cluster of the fleet. */
    readonly clusterSelector?: ClusterSelector;
  };
  /** Declared writes. */
  readonly writes?: readonly WriteDeclaration[];
  /** Declared extra reads. */
  readonly watches?: readonly WatchDeclaration[];
}

/**
 * A controller handed over by `main` while a capture is open, with the Lease settings of its
 * `replicas` option when it has one.
 *
 * @example
 * ```ts
 * const d: Declaration = { controller: hello, replicas: { namespace: 'rxfleet-system' } };
 * ```
 */
export interface Declaration {
  /** The controller. */
  readonly controller: DeclaredController;
  /** Where its Leases live, when it runs as several replicas. */
  readonly replicas?: {
    /** The namespace of the Leases, on the replicas' home cluster. */
    readonly namespace: string;
    /** The leader Lease's name, or the prefix of the membership Leases; absent: the controller's name. */
    readonly name?: string;
  };
}

const hook = Symbol.for('rxfleet.declarations');
type Sink = (d: Declaration) => void;
type WithHook = typeof globalThis & { [hook]?: Sink };

/**
 * The open capture, if any (`main` calls it instead of running).
 *
 * @example
 * ```ts
 * const take = declarationCapture();
 * if (take !== undefined) take({ controller: c });
 * ```
 * @returns the function taking declarations, or undefined when no capture is open.
 */
export function declarationCapture(): ((d: Declaration) => void) | undefined {
  return (globalThis as WithHook)[hook];
}

/**
 * Runs `load` (typically a dynamic import of a program) with a capture open, and returns what it
 * declared through `main`. Captures do not nest; the previous hook is restored afterwards.
 *
 * @example
 * ```ts
 * const { declared } = await captureDeclarations(() => loadProgram());
 * ```
 * @param load - what to run while capturing.
 * @returns `load`'s result and the declarations, in order.
 */
export async function captureDeclarations<R>(load: () => Promise<R>): Promise<{
  /** What `load` resolved with (the module, for a dynamic import). */
  readonly result: R;
  /** The controllers `main` was given while loading, in order. */
  readonly declared: readonly Declaration[];
}> {
  const g = globalThis as WithHook;
  const previous = g[hook];
  const declared: Declaration[] = [];
  g[hook] = (d) => {
    declared.push(d);
  };
  try {
    const result = await load();
    return { result, declared };
  } finally {
    if (previous === undefined) Reflect.deleteProperty(g, hook);
    else g[hook] = previous;
  }
}
