// Scrubbing credentials out of free text that came from outside (a response body, a gateway's error
// page, a plugin's stderr) before it becomes part of an error message or a log line. Text only: the
// logger's deep redaction of objects (runtime/redact.ts) uses this for the strings it meets.

const redacted = '[Redacted]';

// A PEM block, whether the body ends inside it (truncated) or not: certificates and keys alike.
const pem = /-----BEGIN ([A-Z0-9 ]{1,40})-----[\s\S]*?(?:-----END \1-----|$)/g;
// The same blocks base64-encoded, as kubeconfigs carry them (`client-key-data: LS0tLS1CRUdJTi…`).
const pemBase64 = /LS0tLS1CRUdJTi[A-Za-z0-9+/=]*/g;
// An Authorization header (or JSON/YAML key) with whatever follows it on the line, up to a quote.
const authorization = /\b((?:proxy-)?authorization)(["']?\s*[:=]\s*["']?)(?!\s*["']?\[Redacted)[^"'\r\n]*/gi;
// `Bearer <token>` anywhere (a gateway echoing the request, a curl line in a message).
const bearer = /\b(bearer)\s+(?!\s*\[Redacted)[A-Za-z0-9\-._~+/]+=*/gi;
// A JWT (service account tokens, OIDC id tokens) wherever it stands: three base64url parts, `eyJ…`.
const jwt = /\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g;
// `"token": "…"`, `password=…`, `client-key-data: …`, `serviceAccountToken`, `client_secret`: the
// value of a key whose name ends in a credential word, quoted or not.
const keyed =
  /(["']?)\b([\w-]{0,40}?(?:token|password|passwd|secret|private[-_]?key|client-key-data|api[-_]?key))\1(\s*[:=]\s*)(?!\s*["']?\[Redacted)(?:(["'])[^"'\r\n]*\4?|[^\s"',;&}\]]+)/gi;

/**
 * Removes credentials from free text: PEM blocks (certificates and private keys, also base64 encoded
 * as in a kubeconfig, also cut short), `Authorization` headers, `Bearer` tokens, JWTs, and the values of
 * keys whose name ends in `token`, `password`, `secret`, `private-key`, `api-key` or is
 * `client-key-data` (`"token":"…"`, `access_token=…`, `client_secret: …`), written as JSON, YAML,
 * headers or query parameters. Each is replaced by `[Redacted]` (a PEM block by `[Redacted <its
 * label>]`); the rest of the text is kept, so an error still says what went wrong. Pure and
 * idempotent.
 *
 * @example
 * ```ts
 * scrubSecrets('{"message":"denied","token":"eyJhbGciOi"}'); // '{"message":"denied","token":"[Redacted]"}'
 * scrubSecrets('upstream said: Authorization: Bearer abc.def'); // 'upstream said: Authorization: [Redacted]'
 * ```
 * @param text - text from outside the process.
 * @returns the text without credentials.
 */
export function scrubSecrets(text: string): string {
  return text
    .replace(pem, (_m, label: string) => `[Redacted ${label}]`)
    .replace(pemBase64, redacted)
    .replace(authorization, (_m, key: string, sep: string) => `${key}${sep}${redacted}`)
    .replace(bearer, (_m, word: string) => `${word} ${redacted}`)
    .replace(jwt, redacted)
    .replace(keyed, (_m, q: string, key: string, sep: string, vq: string | undefined) => `${q}${key}${q}${sep}${vq ?? ''}${redacted}${vq ?? ''}`);
}
