// Every shape a credential can reach a log line in, through every logger rxfleet hands out, for every
// kind of credential: the bytes written must hold none of them. Each shape names where the text is
// (message, Error, cause, format argument, field, binding, …); each kind is a credential in the form
// it takes in the wild (a bearer token, a JWT recognised by its shape alone, a PEM key, a query
// parameter, a Basic header, a URL's userinfo).
import type { Logger } from 'pino';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { controllerLogger, defaultLogger } from '../../src/runtime/index.js';
import { lines, syncWrites } from './log-capture.js';

const b64url = (s: string): string => Buffer.from(s).toString('base64url');

interface Kind {
  /** The credential as it stands in free text. */
  readonly text: string;
  /** The credential as it stands in a URL. */
  readonly url: string;
  /** Substrings that must appear nowhere. */
  readonly canaries: readonly string[];
}

function jwt(header: string, subject: string, signature: string): { token: string; canaries: string[] } {
  const payload = b64url(JSON.stringify({ sub: subject, exp: 1_900_000_000 }));
  return { token: `${b64url(header)}.${payload}.${signature}`, canaries: [payload, signature] };
}
const standard = jwt('{"alg":"RS256","typ":"JWT","kid":"k1"}', 'system:serviceaccount:fleet:canary', 'U2lnbmF0dXJlQ2FuYXJ5T25lX2p3dF92YWx1ZQ');
// A header written with spaces does not begin `eyJ`: only its shape says it is a JWT.
const spaced = jwt('{ "alg": "ES256", "kid": "k2" }', 'spaced-header-canary', 'U3BhY2VkU2lnbmF0dXJlX2NhbmFyeV92YWx1ZQ');
const pemLines = ['MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQCpemCanaryLineOne', 'Zx9pemCanaryLineTwoQwErTyUiOpAsDfGhJkLzXcVbNm0123456789abcdefABCDEF'];
const pem = `-----BEGIN PRIVATE KEY-----\n${pemLines.join('\n')}\n-----END PRIVATE KEY-----`;
const basicPassword = 'basic-pw-canary-Q7z';
const basic = Buffer.from(`fleet-admin:${basicPassword}`).toString('base64');

const kinds: Readonly<Record<string, Kind>> = {
  bearer: { text: 'Bearer brr_live_7Hc2Qx9LmP4vW8sK1dZ3', url: 'authorization=Bearer%20brr_live_7Hc2Qx9LmP4vW8sK1dZ3', canaries: ['brr_live_7Hc2Qx9LmP4vW8sK1dZ3'] },
  jwt: { text: `assertion ${standard.token}`, url: `assertion=${standard.token}`, canaries: standard.canaries },
  'jwt, spaced header': { text: `assertion ${spaced.token}`, url: `assertion=${spaced.token}`, canaries: spaced.canaries },
  'PEM private key': { text: pem, url: `key=${encodeURIComponent(pem)}`, canaries: pemLines },
  'access_token=': { text: 'access_token=at-canary-0a1b2c3d4e', url: 'access_token=at-canary-0a1b2c3d4e', canaries: ['at-canary-0a1b2c3d4e'] },
  'token=': { text: 'token=tk-canary-5f6a7b8c9d', url: 'token=tk-canary-5f6a7b8c9d', canaries: ['tk-canary-5f6a7b8c9d'] },
  'password=': { text: 'password=pw-canary-hunter2', url: 'password=pw-canary-hunter2', canaries: ['pw-canary-hunter2'] },
  'Basic header': { text: `Basic ${basic}`, url: `authorization=Basic%20${basic}`, canaries: [basic, basicPassword] },
  'URL userinfo': { text: `https://fleet-admin:ui-canary-s3cr3t@registry.example/v2/`, url: 'next=https://fleet-admin:ui-canary-s3cr3t@registry.example/v2/', canaries: ['ui-canary-s3cr3t'] },
};

// Objects handed to the logger are frozen, so a scrub that wrote into them would throw.
function frozen<T>(v: T): T {
  if (typeof v === 'object' && v !== null && !(v instanceof Error) && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v)) frozen(x);
  }
  return v;
}

const error = (message: string, options?: ErrorOptions): Error => new Error(message, options);
const url = (k: Kind): string => `https://api.example/v1/callback?state=s1&${k.url}`;

type Shape = (log: Logger, k: Kind) => void;
const shapes: Readonly<Record<string, Shape>> = {
  'string message': (log, k) => { log.info(`upstream said ${k.text}`); },
  'Error first': (log, k) => { log.error(error(`refused ${k.text}`)); },
  'Error first, with a message': (log, k) => { log.error(error(`refused ${k.text}`), 'call failed'); },
  'Error with a cause chain': (log, k) => { log.error(error('outer', { cause: error('middle', { cause: error(`inner ${k.text}`) }) })); },
  AggregateError: (log, k) => { log.error(new AggregateError([error('first'), error(`second ${k.text}`)], 'both failed')); },
  'Error in err': (log, k) => { log.warn(frozen({ err: error(`refused ${k.text}`) }), 'failed'); },
  'Error in another field': (log, k) => { log.warn(frozen({ failure: Object.assign(error(`refused ${k.text}`), { detail: k.text }) }), 'failed'); },
  'nested field': (log, k) => { log.info(frozen({ a: { b: { c: { note: k.text } } } }), 'nested'); },
  array: (log, k) => { log.info(frozen({ items: ['x', [{ note: k.text }], k.text] }), 'array'); },
  '%s': (log, k) => { log.info('got %s', k.text); },
  '%s of an Error': (log, k) => { log.info('got %s', error(k.text)); },
  '%j': (log, k) => { log.info('got %j', frozen({ note: k.text })); },
  '%o': (log, k) => { log.info('got %o', frozen({ list: [k.text] })); },
  '%O': (log, k) => { log.info('got %O', frozen({ deep: { note: k.text } })); },
  'toJSON in a field': (log, k) => { log.info(frozen({ thing: { toJSON: () => ({ note: k.text }) } }), 'toJSON'); },
  'toJSON as %j': (log, k) => { log.info('got %j', frozen({ toJSON: () => k.text })); },
  'child bindings': (log, k) => { log.child(frozen({ req: { note: k.text } })).child({ key: 'k' }).info('bound'); },
  'child msgPrefix': (log, k) => { log.child({}, { msgPrefix: `[${k.text}] ` }).info('prefixed'); },
  setBindings: (log, k) => {
    const child = log.child({ cluster: 'east' });
    child.setBindings(frozen({ note: k.text }));
    child.info('rebound');
  },
  'URL query in the message': (log, k) => { log.info(`GET ${url(k)} failed`); },
  'URL query in a field': (log, k) => { log.info(frozen({ request: { url: url(k) } }), 'request'); },
  'URL query as %s': (log, k) => { log.info('GET %s failed', url(k)); },
};

// Runs `use` against a logger and returns every byte it wrote.
type Mode = (use: (log: Logger) => void) => string;

function stderr(format: 'json' | 'pretty', make: () => Logger): Mode {
  return (use) => {
    vi.stubEnv('LOG_FORMAT', format);
    const text = syncWrites();
    try {
      use(make());
    } finally {
      vi.restoreAllMocks();
      vi.unstubAllEnvs();
    }
    return text();
  };
}

function injected(use: (log: Logger) => void): string {
  const { stream, text } = lines();
  use(controllerLogger(pino(stream), 'c'));
  return text();
}

const modes: Readonly<Record<string, Mode>> = {
  'default JSON': stderr('json', () => defaultLogger()),
  'default JSON, controller': stderr('json', () => controllerLogger(defaultLogger(), 'c')),
  pretty: stderr('pretty', () => defaultLogger()),
  'pretty, controller': stderr('pretty', () => controllerLogger(defaultLogger(), 'c')),
  'injected pino root': injected,
};

/** `mode / shape / kind` of every case whose output holds a canary, and of every case that wrote nothing. */
function leaks(modeName: string): { leaked: string[]; silent: string[] } {
  const mode = modes[modeName];
  if (mode === undefined) throw new Error(modeName);
  const leaked: string[] = [];
  const silent: string[] = [];
  for (const [shapeName, shape] of Object.entries(shapes)) {
    for (const [kindName, kind] of Object.entries(kinds)) {
      const out = mode((log) => {
        shape(log, kind);
      });
      if (out.trim() === '') silent.push(`${shapeName} / ${kindName}`);
      const found = kind.canaries.filter((c) => out.includes(c));
      if (found.length > 0) leaked.push(`${shapeName} / ${kindName}`);
    }
  }
  return { leaked, silent };
}

describe('no credential reaches a log line, whatever its shape', () => {
  afterEach(() => {
    vi.restoreAllMocks();
    vi.unstubAllEnvs();
  });

  it.each(Object.keys(modes))('%s', (modeName) => {
    const { leaked, silent } = leaks(modeName);
    expect(silent).toEqual([]);
    expect(leaked).toEqual([]);
  });
});
