// Redaction of what a log line carries, at any depth: pino's redact paths name fixed places, but
// user code logs a Secret inside a watch event inside an array just as easily as at the top. One
// recursive walk, bounded, cycle-safe, and copying only along the paths it changes.
import { scrubSecrets } from '../core/scrub.js';

const redacted = '[Redacted]';
/** Deeper than this, a value is replaced (fail closed): no real log field nests so far. */
const maxDepth = 32;
/** Objects one log line may visit; the rest is replaced (fail closed). */
const maxObjects = 10_000;

// Keys whose value is a credential, whatever its type. Compared lowercased, without `-` and `_`, so
// `client-key-data`, `clientKeyData` and `client_key_data` are one key. Certificates (`certData`,
// `client-certificate-data`, `certificate-authority-data`) are public and stay; file paths
// (`tokenFile`, `client-key`) name where a credential is, not what it is, and stay too.
const credentialKey = /^(?:(?:proxy)?authorization|(?:set)?cookie|kubeconfig|passwd|clientkeydata|keydata|.*(?:token|password|privatekey|apikey))$/;
// Strings that may hold a credential are scrubbed as text; this test keeps ordinary strings cheap.
const maySecret = /bearer|-----BEGIN|LS0tLS1CRUdJTi|eyJ|authori[sz]ation|token|passw|secret|private|api[-_]?key|client-key/i;

// No memo of visited objects: what an object becomes depends on the key it sits under, and the
// budget already bounds an object reached along many paths.
interface Walk {
  budget: number;
  readonly path: Set<object>;
}

const normalise = (key: string): string => key.toLowerCase().replace(/[-_]/g, '');

/** Objects whose JSON is their own enumerable properties: plain objects, arrays, class instances without `toJSON`. */
function walkable(v: object): boolean {
  if (typeof (v as { toJSON?: unknown }).toJSON === 'function') return false;
  return !(v instanceof Map || v instanceof Set || v instanceof Promise || ArrayBuffer.isView(v) || v instanceof ArrayBuffer);
}

/**
 * Whether an object is a Secret, so that its `data` (and `stringData`) must go: it says
 * `kind: Secret`; or it has `metadata` and a `type` but no `kind` (a Secret as a list answers it);
 * or it sits under a key that says so (`secret`, `kubeconfigSecret`, `secrets: [...]`).
 */
function secretShaped(o: Readonly<Record<string, unknown>>, under: string): boolean {
  if (o.kind === 'Secret' || under.includes('secret')) return true;
  return o.kind === undefined && typeof o.type === 'string' && typeof o.metadata === 'object' && o.metadata !== null;
}

function scrubObject(o: Readonly<Record<string, unknown>>, under: string, depth: number, w: Walk): Readonly<Record<string, unknown>> {
  const secret = secretShaped(o, under);
  let copy: Record<string, unknown> | undefined;
  for (const k of Object.keys(o)) {
    const v = o[k];
    const key = normalise(k);
    const gone =
      credentialKey.test(key) ||
      key === 'stringdata' ||
      (key === 'data' && secret) ||
      (key === 'env' && under === 'exec') ||
      // `clientSecret: '…'` is a credential; an object under such a key (`secret: { metadata, data }`) is walked as a Secret.
      (key.endsWith('secret') && (typeof v !== 'object' || v === null));
    const next = gone && v !== undefined ? redacted : scrubValue(v, key, depth + 1, w);
    if (next !== v) {
      copy ??= { ...o };
      copy[k] = next;
    }
  }
  return copy ?? o;
}

/** An Error keeps its prototype (pino's `err` serializer reads its class); message, stack and fields are scrubbed. */
function scrubError(e: Error, under: string, depth: number, w: Walk): Error {
  const message = scrubValue(e.message, 'message', depth + 1, w);
  const stack = scrubValue(e.stack, 'stack', depth + 1, w);
  const hasCause = Object.hasOwn(e, 'cause');
  const cause = hasCause ? scrubValue(e.cause, 'cause', depth + 1, w) : undefined;
  const fields = scrubObject(e as unknown as Record<string, unknown>, under, depth, w);
  if (message === e.message && stack === e.stack && cause === e.cause && fields === (e as unknown)) return e;
  const copy = Object.create(Object.getPrototypeOf(e) as object) as Error;
  const own = (value: unknown): PropertyDescriptor => ({ value, writable: true, configurable: true, enumerable: false });
  Object.defineProperties(copy, { message: own(message), stack: own(stack), ...(hasCause ? { cause: own(cause) } : {}) });
  return Object.assign(copy, fields);
}

function scrubValue(v: unknown, under: string, depth: number, w: Walk): unknown {
  if (typeof v === 'string') return maySecret.test(v) ? scrubSecrets(v) : v;
  if (typeof v !== 'object' || v === null) return v;
  if (w.path.has(v)) return '[Circular]';
  if (depth > maxDepth || --w.budget < 0) return '[Truncated]';
  if (!walkable(v)) return v;
  w.path.add(v);
  const out = Array.isArray(v)
    ? scrubArray(v, under, depth, w)
    : v instanceof Error
      ? scrubError(v, under, depth, w)
      : scrubObject(v as Record<string, unknown>, under, depth, w);
  w.path.delete(v);
  return out;
}

// Elements inherit their array's key: `secrets: [s1, s2]` are Secrets, `env` of an exec stays `env`.
function scrubArray(a: readonly unknown[], under: string, depth: number, w: Walk): readonly unknown[] {
  let copy: unknown[] | undefined;
  a.forEach((v, i) => {
    const next = scrubValue(v, under, depth + 1, w);
    if (next !== v) {
      copy ??= [...a];
      copy[i] = next;
    }
  });
  return copy ?? a;
}

/**
 * The fields of one log line without credentials, at any depth and inside arrays: the values of
 * credential keys (`authorization`, `cookie`, `kubeconfig`, `password`, `client-key-data`,
 * `keyData`, any key ending in `token`, `password`, `privateKey` or `apiKey`, a string under a key
 * ending in `secret`), the `data` and `stringData` of Secrets (an object with `kind: Secret`, a
 * Secret as lists return it, or any object under a key containing `secret`; `stringData` anywhere),
 * the `env` of a kubeconfig's `exec`, and credentials inside strings (see `scrubSecrets`). Errors
 * keep their class. The input is never changed: objects are copied only along the paths that
 * change, so an ordinary line costs a walk and no allocation. Cycles become `[Circular]`; past
 * depth 32 or 10 000 objects, what is left becomes `[Truncated]`.
 *
 * @example
 * ```ts
 * const log = pino({ formatters: { log: redactSecrets } });
 * log.info({ event: { object: { kind: 'Secret', metadata: { name: 'db' }, data: { password: 'aHVudGVyMg==' } } } });
 * // … "object":{"kind":"Secret","metadata":{"name":"db"},"data":"[Redacted]"} …
 * ```
 * @param fields - what a log call was given (or a child logger's bindings).
 * @returns the same object when nothing had to go, else a redacted copy.
 */
export function redactSecrets(fields: Record<string, unknown>): Record<string, unknown> {
  return scrubObject(fields, '', 0, { budget: maxObjects, path: new Set([fields]) });
}
