// Cluster labels kept in a kubeconfig: a context's extension named `rxfleet.dev/labels`, whose
// `extension` maps label keys to values. kubectl keeps extensions it does not know, so the labels
// travel with the kubeconfig.
import type { Either } from '../../internal/fp.js';
import { E } from '../../internal/fp.js';
import type { Labels } from '../internal/kubeconfig.js';

/**
 * The name of the context extension that holds a cluster's labels.
 *
 * @example
 * ```ts
 * // contexts:
 * // - name: east
 * //   context:
 * //     cluster: east
 * //     user: east
 * //     extensions:
 * //     - name: rxfleet.dev/labels
 * //       extension: { region: eu, tier: prod }
 * const name = labelsExtension; // 'rxfleet.dev/labels'
 * ```
 */
export const labelsExtension = 'rxfleet.dev/labels';

function record(x: unknown): Readonly<Record<string, unknown>> | undefined {
  return typeof x === 'object' && x !== null && !Array.isArray(x) ? (x as Record<string, unknown>) : undefined;
}

/**
 * The labels of one context of a parsed kubeconfig document: `Right(undefined)` without the
 * extension, `Left` (why) when the extension is not a map of scalars. Numbers and booleans become
 * strings (YAML reads `tier: 1` as a number; labels are strings).
 *
 * @example
 * ```ts
 * contextLabels(doc, 'east'); // E.right({ region: 'eu' })
 * ```
 * @param doc - the kubeconfig as parsed YAML.
 * @param context - the context's name.
 * @returns the labels, none, or why they cannot be read.
 */
export function contextLabels(doc: unknown, context: string): Either<string, Labels | undefined> {
  const contexts = record(doc)?.contexts;
  if (!Array.isArray(contexts)) return E.right(undefined);
  return entryLabels(contexts.find((c) => record(c)?.name === context));
}

/**
 * The labels of one context entry (`{ name, context: { …, extensions } }`) of a parsed kubeconfig,
 * as {@link contextLabels} reads them: for a caller that already holds the entry (a file with many
 * contexts is read in one pass, not one search per context).
 *
 * @example
 * ```ts
 * entryLabels({ name: 'east', context: { cluster: 'c', extensions: [{ name: 'rxfleet.dev/labels', extension: { region: 'eu' } }] } }); // E.right({ region: 'eu' })
 * ```
 * @param entry - the context entry as parsed YAML.
 * @returns the labels, none, or why they cannot be read.
 */
export function entryLabels(entry: unknown): Either<string, Labels | undefined> {
  const extensions = record(record(entry)?.context)?.extensions;
  if (!Array.isArray(extensions)) return E.right(undefined);
  const ext = extensions.map(record).find((e) => e?.name === labelsExtension);
  if (ext === undefined) return E.right(undefined);
  const map = record(ext.extension);
  if (map === undefined) return E.left(`extension ${labelsExtension} must map label keys to values`);
  const labels: Record<string, string> = {};
  for (const [k, v] of Object.entries(map)) {
    if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') return E.left(`extension ${labelsExtension}: label "${k}" must be a string`);
    labels[k] = String(v);
  }
  return E.right(Object.freeze(labels));
}
