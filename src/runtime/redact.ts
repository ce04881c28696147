// Redaction of what a log line carries, at any depth: pino's redact paths name fixed places, but
// user code logs a Secret inside a watch event inside an array just as easily as at the top. One
// recursive walk, bounded, cycle-safe, and copying only along the paths it changes.
import { mayHoldSecret, scrubSecrets } from '../core/scrub.js';

const redacted = '[Redacted]';
/** Deeper than this, a value is replaced (fail closed): no real log field nests so far. */
const maxDepth = 32;
/** Values (objects, array elements, fields) one log call may visit; the rest is replaced (fail closed). */
const maxValues = 100_000;

// Keys whose value is a credential, whatever its type. Compared lowercased, without `-` and `_`, so
// `client-key-data`, `clientKeyData` and `client_key_data` are one key. Certificates (`certData`,
// `client-certificate-data`, `certificate-authority-data`) are public and stay; file paths
// (`tokenFile`, `client-key`) name where a credential is, not what it is, and stay too.
const credentialKey = /^(?:(?:proxy)?authorization|(?:set)?cookie|kubeconfig|passwd|clientkeydata|keydata|.*(?:token|password|privatekey|apikey))$/;

// No memo of visited objects: what an object becomes depends on the key it sits under, and the
// budget already bounds an object reached along many paths.
interface Walk {
  budget: number;
  readonly path: Set<object>;
}

const walk = (): Walk => ({ budget: maxValues, path: new Set() });
const normalise = (key: string): string => key.toLowerCase().replace(/[-_]/g, '');

/** Objects JSON shows nothing of worth scrubbing: collections and promises print `{}`, bytes are numbers, a Date its time. */
function opaque(v: object): boolean {
  return v instanceof Map || v instanceof Set || v instanceof WeakMap || v instanceof WeakSet || v instanceof Promise || v instanceof Date || ArrayBuffer.isView(v) || v instanceof ArrayBuffer;
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

/** What the field `k` of an object (a Secret when `secret`) becomes. */
function scrubField(k: string, v: unknown, secret: boolean, under: string, depth: number, w: Walk): unknown {
  const key = normalise(k);
  const gone =
    credentialKey.test(key) ||
    key === 'stringdata' ||
    (key === 'data' && secret) ||
    (key === 'env' && under === 'exec') ||
    // `clientSecret: '…'` is a credential; an object under such a key (`secret: { metadata, data }`) is walked as a Secret.
    (key.endsWith('secret') && (typeof v !== 'object' || v === null));
  return gone && v !== undefined ? redacted : scrubValue(v, key, depth + 1, w);
}

function scrubObject(o: Readonly<Record<string, unknown>>, under: string, depth: number, w: Walk): Readonly<Record<string, unknown>> {
  const secret = secretShaped(o, under);
  let copy: Record<string, unknown> | undefined;
  for (const k of Object.keys(o)) {
    const v = o[k];
    // A key can be a credential too (a cache keyed by token).
    const name = k.length >= 16 && mayHoldSecret(k) ? scrubSecrets(k) : k;
    const next = --w.budget < 0 ? '[Truncated]' : scrubField(k, v, secret, under, depth, w);
    if (next !== v || name !== k) {
      copy ??= { ...o };
      if (name !== k) Reflect.deleteProperty(copy, k);
      copy[name] = next;
    }
  }
  return copy ?? o;
}

/**
 * An Error becomes an Error of the same class (pino's `err` serializer, `instanceof` and `%s` still
 * see one) whose own properties are scrubbed, enumerable or not: `message`, `stack`, `cause`, an
 * AggregateError's `errors`, and its fields.
 */
function scrubError(e: Error, under: string, depth: number, w: Walk): Error {
  const changed = new Map<string, unknown>();
  for (const k of Object.getOwnPropertyNames(e)) {
    const v: unknown = (e as unknown as Record<string, unknown>)[k];
    const next = --w.budget < 0 ? '[Truncated]' : scrubField(k, v, false, under, depth, w);
    if (next !== v) changed.set(k, next);
  }
  if (changed.size === 0) return e;
  const copy = new Error();
  Object.setPrototypeOf(copy, Object.getPrototypeOf(e) as object);
  if (!Object.hasOwn(e, 'stack')) Reflect.deleteProperty(copy, 'stack');
  for (const k of Object.getOwnPropertyNames(e)) {
    const enumerable = Object.getOwnPropertyDescriptor(e, k)?.enumerable ?? false;
    const value = changed.has(k) ? changed.get(k) : (e as unknown as Record<string, unknown>)[k];
    Object.defineProperty(copy, k, { value, enumerable, writable: true, configurable: true });
  }
  return copy;
}

/** An object with `toJSON` prints what that returns: scrubbed, that is logged instead; the object itself when clean. */
function scrubJSON(v: { toJSON: (key: string) => unknown }, under: string, depth: number, w: Walk): unknown {
  let json: unknown;
  try {
    json = v.toJSON(under);
  } catch {
    return v; // pino meets the same throw, as it would without rxfleet
  }
  const out = scrubValue(json, under, depth + 1, w);
  return out === json ? v : out;
}

function scrubValue(v: unknown, under: string, depth: number, w: Walk): unknown {
  if (typeof v === 'string') return scrubSecrets(v);
  if (typeof v !== 'object' || v === null) return v;
  if (w.path.has(v)) return '[Circular]';
  if (depth > maxDepth || --w.budget < 0) return '[Truncated]';
  if (opaque(v)) return v;
  w.path.add(v);
  const out = Array.isArray(v)
    ? scrubArray(v, under, depth, w)
    : v instanceof Error
      ? scrubError(v, under, depth, w)
      : typeof (v as { toJSON?: unknown }).toJSON === 'function'
        ? scrubJSON(v as { toJSON: (key: string) => unknown }, under, depth, w)
        : scrubObject(v as Record<string, unknown>, under, depth, w);
  w.path.delete(v);
  return out;
}

// Elements inherit their array's key: `secrets: [s1, s2]` are Secrets, `env` of an exec stays `env`.
function scrubArray(a: readonly unknown[], under: string, depth: number, w: Walk): readonly unknown[] {
  let copy: unknown[] | undefined;
  a.forEach((v, i) => {
    const next = --w.budget < 0 ? '[Truncated]' : scrubValue(v, under, depth + 1, w);
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
 * the `env` of a kubeconfig's `exec`, and credentials inside strings and keys (see `scrubSecrets`).
 * Errors keep their class, and lose credentials from message, stack, causes and fields; an object
 * with `toJSON` is replaced by its scrubbed JSON when that held one. The input is never changed:
 * objects are copied only along the paths that change, so an ordinary line costs a walk and no
 * allocation. Cycles become `[Circular]`; past depth 32 or 100 000 values, what is left becomes
 * `[Truncated]`.
 *
 * @example
 * ```ts
 * redactSecrets({ event: { object: { kind: 'Secret', metadata: { name: 'db' }, data: { password: 'aHVudGVyMg==' } } } });
 * // { event: { object: { kind: 'Secret', metadata: { name: 'db' }, data: '[Redacted]' } } }
 * ```
 * @param fields - what a log call was given (or a child logger's bindings).
 * @returns the same object when nothing had to go, else a redacted copy.
 */
export function redactSecrets(fields: Record<string, unknown>): Record<string, unknown> {
  const w = walk();
  w.path.add(fields);
  return scrubObject(fields, '', 0, w);
}

/**
 * The arguments of one call of a pino level method without credentials, whatever their shape: a
 * merging object or an Error first, the message, and the values of `%s`/`%d`/`%j`/`%o`/`%O`, each
 * walked as {@link redactSecrets} walks fields, within one shared bound.
 *
 * @example
 * ```ts
 * redactLogArguments([new Error('denied for Bearer abc')]); // [Error: denied for Bearer [Redacted]]
 * ```
 * @param args - what the level method was given.
 * @returns the same array when nothing had to go, else a scrubbed copy.
 */
export function redactLogArguments(args: readonly unknown[]): readonly unknown[] {
  const w = walk();
  const out = args.map((a) => scrubValue(a, '', 0, w));
  return out.some((a, i) => a !== args[i]) ? out : args;
}

/**
 * One serialised JSON log line without credentials: the last net of a logger rxfleet builds, after
 * pino has formatted the message (a credential split across a format and its argument, `'%s=%s'`,
 * shows only there). Lines that cannot hold one are returned untouched, without parsing.
 *
 * @example
 * ```ts
 * pino({ hooks: { streamWrite: redactLine } }).info('%s=%s', 'access_token', 'abc'); // "msg":"access_token=[Redacted]"
 * ```
 * @param line - a line as pino writes it: JSON, then a newline.
 * @returns the line, or a redacted copy of it.
 */
export function redactLine(line: string): string {
  if (!mayHoldSecret(line)) return line;
  let fields: unknown;
  try {
    fields = JSON.parse(line);
  } catch {
    return scrubSecrets(line);
  }
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) return scrubSecrets(line);
  const out = redactSecrets(fields as Record<string, unknown>);
  return out === fields ? line : `${JSON.stringify(out)}\n`;
}
