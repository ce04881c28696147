// The error union: every failure rxfleet reports is one of these plain, frozen values, mapped from
// Kubernetes Status responses or from the transport. They travel as data (Either), never as an
// RxJS error on a merged stream, and never carry a token, key or Authorization header.
import type { ClusterName } from './cluster.js';
import { scrubSecrets } from './scrub.js';

/** The tags of {@link KubeError}. @example `if (e.type === 'Conflict') retry()` */
export type KubeErrorType =
  | 'BadRequest'
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'MethodNotAllowed'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Invalid'
  | 'TooManyRequests'
  | 'Timeout'
  | 'Transient'
  | 'ClusterUnreachable'
  | 'Tls'
  | 'InvalidConfig'
  | 'NotEngaged'
  | 'Fenced'
  | 'Decode'
  | 'Unknown';

/**
 * A failure talking to one cluster. `message` is complete on its own: it names the cluster, the
 * request and the cause, so it can be logged or shown as is.
 *
 * @example
 * ```ts
 * const client = createClusterClient(clusterName('east'), { file: 'east.kubeconfig' });
 * const r = E.isRight(client) ? await client.right.get(configMaps, 'missing', { namespace: 'default' }) : client;
 * if (E.isLeft(r) && r.left.type === 'NotFound') console.log(r.left.message);
 * ```
 */
export interface KubeError {
  /** What kind of failure this is: the tag to branch on (see {@link isRetryable}). */
  readonly type: KubeErrorType;
  /** The cluster the request was for. */
  readonly cluster: ClusterName;
  /** A full sentence naming the cluster, the request and the cause. */
  readonly message: string;
  /**
   * HTTP status, when the server answered. A watch stream that failed after a 2xx answer (cut, ended
   * in the middle of a line) keeps that 2xx here: the watch was open, and its end is an interruption.
   */
  readonly code?: number;
  /** The Status `reason`, when the server gave one (e.g. `Expired`, `AlreadyExists`). */
  readonly reason?: string;
  /** `METHOD path` of the request (no query secrets: rxfleet never puts credentials in URLs). */
  readonly request?: string;
  /** Seconds the server asked us to wait (429 and some 5xx). */
  readonly retryAfterSeconds?: number;
  /** Per-field causes of an Invalid or Conflict Status. */
  readonly causes?: readonly StatusCause[];
  /** The object the Status is about, when named; nested so it never reads as JavaScript's `Error.name`. */
  readonly details?: {
    /** Name of the object, e.g. `a` in `configmaps "a" not found`. */
    readonly name?: string;
    /** Kind (or resource) of the object as the server named it; it may differ from the request's. */
    readonly kind?: string;
    /** API group of the object; absent for the core group. */
    readonly group?: string;
  };
  /** Transport-level cause (e.g. `ECONNREFUSED`, `DEPTH_ZERO_SELF_SIGNED_CERT`). */
  readonly cause?: string;
}

/** One `details.causes[]` entry of a Status. @example `{ reason: 'FieldValueInvalid', field: 'metadata.name' }` */
export interface StatusCause {
  /** Machine-readable cause, e.g. `FieldValueInvalid` or `FieldValueRequired`. */
  readonly reason?: string;
  /** Human-readable explanation of the cause. */
  readonly message?: string;
  /** Path of the offending field, e.g. `metadata.name` or `spec.ports[0].port`; absent when no single field is at fault. */
  readonly field?: string;
}

/** Optional fields of {@link kubeError}. @example `{ code: 404, request: 'GET /api/v1/...' }` */
export type KubeErrorFields = Omit<KubeError, 'type' | 'cluster' | 'message'>;

/**
 * Builds a frozen {@link KubeError}, prefixing the message with the cluster and request. The detail
 * is scrubbed of credentials first (see `scrubSecrets`): it often quotes what a server, a gateway or
 * an exec plugin said, and a message is made to be logged.
 *
 * @example
 * ```ts
 * kubeError('NotEngaged', clusterName('west'), 'cluster is not engaged in the fleet');
 * // message: 'cluster "west": cluster is not engaged in the fleet'
 * ```
 * @param tag - what kind of failure.
 * @param cluster - the cluster concerned.
 * @param detail - the cause, in words.
 * @param fields - code, reason, request and other details.
 * @returns the error value.
 */
export function kubeError(tag: KubeErrorType, cluster: ClusterName, detail: string, fields: KubeErrorFields = {}): KubeError {
  const where = fields.request === undefined ? '' : ` ${fields.request}`;
  const code = fields.code === undefined ? '' : ` → ${fields.code}${fields.reason === undefined ? '' : ` ${fields.reason}`}`;
  return Object.freeze({ ...fields, type: tag, cluster, message: `cluster "${cluster}"${where}${code}: ${scrubSecrets(detail)}` });
}

/** The JSON of a Kubernetes `Status` (metav1.Status), as far as rxfleet reads it. @example `{ kind: 'Status', code: 404, reason: 'NotFound' }` */
export interface Status {
  /** Always `Status` for a Status object. */
  readonly kind?: string;
  /** Outcome of the operation: `Success` or `Failure`. */
  readonly status?: string;
  /** Human-readable description of the outcome. */
  readonly message?: string;
  /** Machine-readable reason of a failure (`NotFound`, `AlreadyExists`, `Expired`…); absent or `''` when none applies. */
  readonly reason?: string;
  /** Suggested HTTP status code; absent or 0 when not set. */
  readonly code?: number;
  /** Extra data about the failure, depending on `reason`; absent when there is none. */
  readonly details?: {
    /** Name of the object the failure is about, when there is one. */
    readonly name?: string;
    /** Kind of the object the failure is about (it may differ from the requested resource). */
    readonly kind?: string;
    /** API group of the object the failure is about; absent or `''` for the core group. */
    readonly group?: string;
    /** Per-field causes of an `Invalid` or `Conflict` failure. */
    readonly causes?: readonly StatusCause[];
    /** Seconds to wait before retrying, when the server suggests it. */
    readonly retryAfterSeconds?: number;
  };
}

const byReason: Readonly<Record<string, KubeErrorType>> = {
  NotFound: 'NotFound',
  AlreadyExists: 'AlreadyExists',
  Conflict: 'Conflict',
  Invalid: 'Invalid',
  Gone: 'Gone',
  Expired: 'Gone',
  Forbidden: 'Forbidden',
  Unauthorized: 'Unauthorized',
  TooManyRequests: 'TooManyRequests',
  BadRequest: 'BadRequest',
  MethodNotAllowed: 'MethodNotAllowed',
  Timeout: 'Timeout',
  ServerTimeout: 'Timeout',
  ServiceUnavailable: 'Transient',
  InternalError: 'Transient',
};

function tagForCode(code: number): KubeErrorType {
  switch (code) {
    case 400:
      return 'BadRequest';
    case 401:
      return 'Unauthorized';
    case 403:
      return 'Forbidden';
    case 404:
      return 'NotFound';
    case 405:
      return 'MethodNotAllowed';
    case 409:
      return 'Conflict';
    case 410:
      return 'Gone';
    case 422:
      return 'Invalid';
    case 429:
      return 'TooManyRequests';
    case 504:
      return 'Timeout';
    default:
      return code >= 500 ? 'Transient' : 'Unknown';
  }
}

// A cause's message can quote the offending value (a token put in the wrong field, say).
function scrubCause(c: unknown): StatusCause {
  const cause = c as StatusCause;
  return typeof c === 'object' && c !== null && typeof cause.message === 'string' ? { ...cause, message: scrubSecrets(cause.message) } : cause;
}

// Only string values are kept: a Status is the server's (or a gateway's) JSON, not checked by types.
function statusDetails(status: Status | undefined): KubeError['details'] {
  const d: unknown = status?.details;
  if (typeof d !== 'object' || d === null) return undefined;
  const src = d as Record<string, unknown>;
  const out = Object.fromEntries((['name', 'kind', 'group'] as const).flatMap((k) => (typeof src[k] === 'string' && src[k] !== '' ? [[k, src[k]]] : [])));
  return Object.keys(out).length === 0 ? undefined : Object.freeze(out);
}

function isStatus(v: unknown): v is Status {
  return typeof v === 'object' && v !== null && (v as { kind?: unknown }).kind === 'Status';
}

/**
 * Maps an HTTP error response (or an ERROR watch event's Status) to a {@link KubeError}. The Status
 * `reason` wins over the HTTP code, because 409 means Conflict or AlreadyExists and a
 * `Expired` reason, like 410, means the resourceVersion is gone.
 *
 * @example
 * ```ts
 * fromStatus(clusterName('east'), 409, { kind: 'Status', reason: 'AlreadyExists', message: 'configmaps "a" already exists' });
 * // { type: 'AlreadyExists', code: 409, ... }
 * ```
 * @param cluster - the cluster that answered.
 * @param httpCode - the HTTP status (or the Status `code` for watch events).
 * @param body - the parsed response body, if any.
 * @param extra - request description and Retry-After, when known.
 * @returns the error value.
 */
export function fromStatus(
  cluster: ClusterName,
  httpCode: number,
  body: unknown,
  extra: { readonly request?: string; readonly retryAfterSeconds?: number } = {},
): KubeError {
  const status = isStatus(body) ? body : undefined;
  const code = status?.code ?? httpCode;
  const reason = status?.reason;
  const tag = (reason === undefined ? undefined : byReason[reason]) ?? tagForCode(code);
  const retryAfterSeconds = extra.retryAfterSeconds ?? status?.details?.retryAfterSeconds;
  // A body is scrubbed before the cut to 500 characters, so a token or PEM block the cut would split
  // is still recognised (kubeError scrubs the detail as well; scrubbing twice changes nothing).
  const message: unknown = status?.message;
  const detail =
    typeof message === 'string'
      ? message
      : typeof body === 'string' && body.length > 0
        ? scrubSecrets(body.slice(0, 4096)).slice(0, 500)
        : `the server answered HTTP ${httpCode}`;
  const fields: { -readonly [K in keyof KubeErrorFields]: KubeErrorFields[K] } = { code };
  if (reason !== undefined && reason !== '') fields.reason = reason;
  if (extra.request !== undefined) fields.request = extra.request;
  if (retryAfterSeconds !== undefined) fields.retryAfterSeconds = retryAfterSeconds;
  const causes: unknown = status?.details?.causes;
  const details = statusDetails(status);
  if (details !== undefined) fields.details = details;
  if (causes !== undefined) fields.causes = Array.isArray(causes) ? causes.map(scrubCause) : (causes as readonly StatusCause[]);
  return kubeError(tag, cluster, detail, fields);
}

const unreachableCodes = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EADDRNOTAVAIL']);
// OpenSSL verification codes as Node reports them, plus Node's own TLS and SSL error codes.
const tlsCode = /^(ERR_TLS_|ERR_SSL_|UNABLE_TO_|CERT_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH|INVALID_CA|INVALID_PURPOSE)/;
const transientCodes = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ECONNABORTED', 'UND_ERR_SOCKET', 'ERR_STREAM_PREMATURE_CLOSE']);

/**
 * Maps a transport failure (a Node.js network or TLS error) to a {@link KubeError}. Only the error
 * code and message are kept: neither carries credentials.
 *
 * @example
 * ```ts
 * fromTransport(clusterName('east'), Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }), 'GET /version');
 * // { type: 'ClusterUnreachable', cause: 'ECONNREFUSED', ... }
 * ```
 * @param cluster - the cluster concerned.
 * @param err - what the transport threw.
 * @param request - `METHOD path` of the request.
 * @returns the error value.
 */
export function fromTransport(cluster: ClusterName, err: unknown, request?: string): KubeError {
  const code = typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
  const text = err instanceof Error ? err.message : String(err);
  const fields: { -readonly [K in keyof KubeErrorFields]: KubeErrorFields[K] } = {};
  if (request !== undefined) fields.request = request;
  if (code !== undefined) fields.cause = code;
  if (code !== undefined && tlsCode.test(code)) {
    return kubeError('Tls', cluster, `TLS verification failed (${code}): ${text}`, fields);
  }
  if (code !== undefined && unreachableCodes.has(code)) {
    return kubeError('ClusterUnreachable', cluster, `cannot reach the API server (${code}): ${text}`, fields);
  }
  if (code !== undefined && transientCodes.has(code)) {
    return kubeError('Transient', cluster, `connection failed (${code}): ${text}`, fields);
  }
  return kubeError('Transient', cluster, text, fields);
}

/**
 * Whether retrying the same request later may succeed (server load, network, timeouts). Conflict is
 * not in this set: it needs a re-read, not a plain retry.
 *
 * @example
 * ```ts
 * isRetryable(err) ? retryWithBackoff() : reportTerminal(err);
 * ```
 * @param e - the error.
 * @returns true for Transient, Timeout, TooManyRequests and ClusterUnreachable.
 */
export function isRetryable(e: KubeError): boolean {
  return e.type === 'Transient' || e.type === 'Timeout' || e.type === 'TooManyRequests' || e.type === 'ClusterUnreachable';
}
