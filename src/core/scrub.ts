// Scrubbing credentials out of free text that came from outside (a response body, a gateway's error
// page, a plugin's stderr) before it becomes part of an error message or a log line. Text only: the
// logger's deep redaction of objects (runtime/redact.ts) uses this for the strings it meets.

const redacted = '[Redacted]';

// A PEM block, whether the body ends inside it (truncated) or not: certificates and keys alike, also
// percent-encoded as in a query string (`-----BEGIN%20PRIVATE%20KEY-----%0A…`).
const pem = /-----BEGIN(?: |%20|\+)([A-Z0-9 %+]{1,40})-----[\s\S]*?(?:-----END(?: |%20|\+)\1-----|$)/g;
// The same blocks base64-encoded, as kubeconfigs carry them (`client-key-data: LS0tLS1CRUdJTi…`).
const pemBase64 = /LS0tLS1CRUdJTi[A-Za-z0-9+/=]*/g;
// An Authorization header (or JSON/YAML key) with whatever follows it on the line, up to a quote.
const authorization = /\b((?:proxy-)?authorization)(["']?\s*[:=]\s*["']?)(?!\s*["']?\[Redacted)[^"'\r\n]*/gi;
// `Bearer <token>` anywhere (a gateway echoing the request, a curl line in a message).
const bearer = /\b(bearer)\s+(?!\s*\[Redacted)[A-Za-z0-9\-._~+/]+=*/gi;
// `Basic <base64>` anywhere; kept when the base64 does not decode to `user:password` ("basic configuration").
const basic = /\b(basic)\s+([A-Za-z0-9+/]{4,}={0,2})(?![A-Za-z0-9+/=])/gi;
// The rest of a run of base64url segments joined by dots, from a segment that may start a JSON
// object (`e` then `y` or `w`: `{"`, `{ `, `{\n`). Hostnames and versions are such runs too: `jwtIn` decides.
const dottedRun = /(?<![\w-])e[wy][\w-]*\.[\w-]*\.[\w-]*(?:\.[\w-]*)*/g;
// The password (or, without one, the whole userinfo: a token as user name) of a URL.
const userinfo = /\b([a-z][a-z0-9+.-]{0,20}:\/\/)([^\s/?#@:"']*)(:[^\s/?#@"']*)?@/gi;
// `"token": "…"`, `password=…`, `client-key-data: …`, `serviceAccountToken`, `client_secret`: the
// value of a key whose name ends in a credential word, quoted or not.
const keyed =
  /(["']?)\b([\w-]{0,40}?(?:token|password|passwd|secret|private[-_]?key|client-key-data|api[-_]?key))\1(\s*[:=]\s*)(?!\s*["']?\[Redacted)(?:(["'])[^"'\r\n]*\4?|[^\s"',;&}\]]+)/gi;
// Text holding none of these holds nothing the patterns above take: most strings stop here.
const mayHold = /bearer|basic|-----BEGIN|LS0tLS1CRUdJTi|authori[sz]ation|token|passw|secret|private|api[-_]?key|client-key|:\/\/[^\s/@]*@|(?<![\w-])e[wy][\w-]*\.[\w-]*\./i;

/** Whether a base64url segment decodes to a JSON object: the header of a JWS or JWE. */
function joseHeader(segment: string): boolean {
  if (!segment.startsWith('e')) return false;
  const text = Buffer.from(segment, 'base64url').toString('utf8');
  if (!text.startsWith('{')) return false;
  try {
    const header: unknown = JSON.parse(text);
    return typeof header === 'object' && header !== null && !Array.isArray(header) && Object.keys(header).length > 0;
  } catch {
    return false;
  }
}

// A JWT is three (a JWE five) base64url segments, the first a JSON header: from that header on, the
// run goes; segments before it (`ewok.eyJ…`) stay.
function jwtIn(run: string): string {
  const parts = run.split('.');
  for (let i = 0; i + 2 < parts.length; i++) {
    if (joseHeader(parts[i] ?? '')) return [...parts.slice(0, i), redacted].join('.');
  }
  return run;
}

function basicIn(match: string, word: string, encoded: string): string {
  const decoded = Buffer.from(encoded, 'base64').toString('latin1');
  return /^[\x20-\x7e]*:[\x20-\x7e]*$/.test(decoded) ? `${word} ${redacted}` : match;
}

/**
 * Whether `text` may hold a credential {@link scrubSecrets} removes: false means it certainly holds
 * none, so a caller may skip work (parsing a log line) on most text.
 *
 * @example
 * ```ts
 * mayHoldSecret('engaged cluster east'); // false
 * mayHoldSecret('retry with token=abc'); // true
 * ```
 * @param text - any text.
 * @returns false when the text holds nothing `scrubSecrets` would change.
 */
export function mayHoldSecret(text: string): boolean {
  return mayHold.test(text);
}

/**
 * Removes credentials from free text: PEM blocks (certificates and private keys, also base64 encoded
 * as in a kubeconfig, also percent-encoded, also cut short), `Authorization` headers, `Bearer` and
 * `Basic` credentials, JWTs (recognised by their shape: base64url segments joined by dots, the first
 * decoding to a JSON object, whatever key or word stands before them), the password of a URL
 * (`https://user:[Redacted]@host`; a user name alone, often a token, goes whole), and the values
 * of keys whose name ends in `token`, `password`, `secret`, `private-key`, `api-key` or is
 * `client-key-data` (`"token":"…"`, `access_token=…`, `client_secret: …`), written as JSON, YAML,
 * headers or query parameters. Each is replaced by `[Redacted]` (a PEM block by `[Redacted <its
 * label>]`); the rest of the text is kept, so an error still says what went wrong. Pure and
 * idempotent; linear in the text's length.
 *
 * @example
 * ```ts
 * scrubSecrets('{"message":"denied","token":"eyJhbGciOi"}'); // '{"message":"denied","token":"[Redacted]"}'
 * scrubSecrets('upstream said: Authorization: Bearer abc.def'); // 'upstream said: Authorization: [Redacted]'
 * scrubSecrets('GET https://admin:hunter2@registry.example/v2/'); // 'GET https://admin:[Redacted]@registry.example/v2/'
 * ```
 * @param text - text from outside the process.
 * @returns the text without credentials.
 */
export function scrubSecrets(text: string): string {
  if (!mayHold.test(text)) return text;
  return text
    .replace(pem, (_m, label: string) => `[Redacted ${label}]`)
    .replace(pemBase64, redacted)
    .replace(authorization, (_m, key: string, sep: string) => `${key}${sep}${redacted}`)
    .replace(bearer, (_m, word: string) => `${word} ${redacted}`)
    .replace(basic, basicIn)
    .replace(dottedRun, jwtIn)
    .replace(userinfo, (_m, scheme: string, user: string, password: string | undefined) => `${scheme}${password === undefined ? redacted : `${user}:${redacted}`}@`)
    .replace(keyed, (_m, q: string, key: string, sep: string, vq: string | undefined) => `${q}${key}${q}${sep}${vq ?? ''}${redacted}${vq ?? ''}`);
}
