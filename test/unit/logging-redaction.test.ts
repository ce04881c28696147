// The controller's loggers redact credentials at any depth: Secrets nested in events, lists and
// arrays, kubeconfigs, Authorization headers, tokens in strings and errors, and child bindings.
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { controllerLogger, defaultLogger } from '../../src/runtime/index.js';
import { redactSecrets } from '../../src/runtime/redact.js';
import { lines, syncWrites } from './log-capture.js';

// Every value below that must never reach a log line.
const secrets = {
  data: 'cGFzc3dvcmQtZGF0YQ==',
  stringData: 'plain-string-data',
  listed: 'bGlzdGVkLWRhdGE=',
  token: 'kc-token-0123456789',
  key: 'LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0tCk1JSUVrZXk=',
  password: 'kc-password-hunter2',
  execEnv: 'aws-secret-access-key-value',
  idToken: 'oidc-id-token-value',
  refresh: 'oidc-refresh-token-value',
  bearer: 'header-bearer-value',
  jwt: 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJjb250cm9sbGVyIn0.c2lnbmF0dXJl',
  errHeader: 'error-attached-header-value',
  binding: 'bound-secret-value',
} as const;
const leaked = (out: string) => Object.entries(secrets).filter(([, v]) => out.includes(v)).map(([k]) => k);

const secret = (name: string) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: 'fleet' }, type: 'Opaque', data: { password: secrets.data }, stringData: { extra: secrets.stringData } });
const kubeconfig = {
  apiVersion: 'v1',
  kind: 'Config',
  clusters: [{ name: 'east', cluster: { server: 'https://east.example:6443', 'certificate-authority-data': 'Q0EtREFUQQ==' } }],
  users: [
    { name: 'token', user: { token: secrets.token } },
    { name: 'cert', user: { 'client-certificate-data': 'Q0VSVC1EQVRB', 'client-key-data': secrets.key } },
    { name: 'basic', user: { username: 'admin', password: secrets.password } },
    { name: 'exec', user: { exec: { command: 'aws', args: ['eks', 'get-token'], env: [{ name: 'AWS_SECRET_ACCESS_KEY', value: secrets.execEnv }] } } },
    { name: 'oidc', user: { 'auth-provider': { name: 'oidc', config: { 'id-token': secrets.idToken, 'refresh-token': secrets.refresh, 'client-id': 'fleet' } } } },
  ],
  contexts: [{ name: 'east', context: { cluster: 'east', user: 'token' } }],
};

function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v)) deepFreeze(x);
  }
  return v;
}

// Logged fields that hold every credential above somewhere, three levels deep and inside arrays.
function fields(): Record<string, unknown> {
  const err = Object.assign(new Error(`gateway refused Authorization: Bearer ${secrets.jwt}`), { config: { headers: { Authorization: `Bearer ${secrets.errHeader}` } } });
  return {
    cluster: 'east',
    a: { b: { c: { object: secret('three-deep') } } },
    events: [[{ type: 'ADDED', object: secret('in-an-array') }]],
    list: { kind: 'SecretList', items: [{ metadata: { name: 'listed' }, type: 'Opaque', data: { v: secrets.listed } }] },
    config: { fleet: [{ kubeconfig: undefined, loaded: kubeconfig }] },
    req: { method: 'GET', headers: { authorization: `Bearer ${secrets.bearer}`, accept: 'application/json' }, rawHeaders: ['Authorization', `Bearer ${secrets.bearer}`] },
    note: `retrying with ${secrets.jwt}`,
    err,
  };
}

// What must still be there: the line is still useful.
const kept = ['"cluster":"east"', '"name":"three-deep"', '"name":"in-an-array"', '"name":"listed"', 'https://east.example:6443', 'Q0VSVC1EQVRB', '"command":"aws"', '"client-id":"fleet"', '"accept":"application/json"', 'gateway refused'];

describe('log redaction at any depth', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('keeps every credential of Secrets, kubeconfigs, headers and errors out of a controller logger on an injected root, and keeps ordinary fields', () => {
    const { stream, text } = lines();
    const log = controllerLogger(pino(stream), 'c');
    log.info(fields(), 'hello');
    log.child({ cluster: 'west' }).child({ key: 'fleet/x' }).warn(fields(), 'again');
    expect(leaked(text())).toEqual([]);
    for (const k of kept) expect(text()).toContain(k);
    expect(text()).toContain('"controller":"c"');
    expect(text()).toContain('"key":"fleet/x"');
    // pino's err serializer still sees an Error: type and message are kept, the token is not.
    expect(text()).toContain('"type":"Error"');
  });

  it('redacts in the default logger too (stderr)', () => {
    const written = syncWrites();
    const log = defaultLogger();
    log.info(fields(), 'hello');
    log.child({ cluster: 'west' }).info({ deeper: fields() });
    vi.restoreAllMocks();
    const out = written();
    expect(out).toContain('"cluster":"west"');
    expect(leaked(out)).toEqual([]);
    for (const k of kept) expect(out).toContain(k);
  });

  it("redacts the bindings of children and grandchildren, and keeps the root's own log formatter", () => {
    const { stream, text } = lines();
    const root = pino({ formatters: { log: (o) => ({ ...o, traced: 'yes' }) } }, stream);
    const log = controllerLogger(root, 'c');
    log.child({ watched: { objects: [secret('bound')] } }).child({ req: { options: { headers: { Authorization: `Bearer ${secrets.binding}` } } } }).info('bound');
    log.child({ cluster: 'east' }).child({ user: { name: 'u', password: secrets.binding } }).info('bound again');
    expect(leaked(text())).toEqual([]);
    expect(text()).toContain('"name":"bound"');
    expect(text()).toContain('"traced":"yes"');
  });

  it('never changes what the caller logged', () => {
    const input = deepFreeze(fields());
    const before = JSON.stringify(input);
    const out = redactSecrets(input);
    expect(JSON.stringify(input)).toBe(before);
    expect(out).not.toBe(input);
    expect(leaked(JSON.stringify(out))).toEqual([]);
  });

  it('returns an ordinary line as it is, without copying it', () => {
    const line = deepFreeze({ cluster: 'east', key: 'cluster://east/default/a', attempts: 3, object: { kind: 'ConfigMap', metadata: { name: 'a' }, data: { k: 'v' } } });
    expect(redactSecrets(line)).toBe(line);
  });

  it('survives cycles and fails closed past its depth bound', () => {
    const cyclic: Record<string, unknown> = { name: 'loop', token: secrets.token };
    cyclic.self = cyclic;
    let deep: Record<string, unknown> = { password: secrets.password, kind: 'Secret', data: { x: secrets.data } };
    for (let i = 0; i < 60; i++) deep = { next: deep };
    const out = JSON.stringify(redactSecrets({ cyclic, deep }));
    expect(out).toContain('[Circular]');
    expect(out).toContain('[Truncated]');
    expect(leaked(out)).toEqual([]);
  });

  it('scrubs credentials out of message strings and format arguments, in children, grandchildren and at every level', () => {
    const { stream, text } = lines();
    const root = pino({ level: 'info' }, stream);
    const log = controllerLogger(root, 'c');
    log.warn(`gateway answered 401 for Authorization: Bearer ${secrets.bearer}`);
    log.child({ cluster: 'east' }).child({ key: 'k' }).error('token %s rejected', secrets.jwt);
    log.info({ cluster: 'west' }, `retrying with ${secrets.jwt}`);
    const debugging = log.child({ cluster: 'north' }, { level: 'debug' });
    debugging.debug(`-----BEGIN PRIVATE KEY-----\n${secrets.key}\n-----END PRIVATE KEY-----`);
    const out = text();
    expect(leaked(out)).toEqual([]);
    expect(out).toContain('gateway answered 401 for Authorization: [Redacted]');
    expect(out).toContain('"msg":"token [Redacted] rejected"');
    expect(out).toContain('"msg":"retrying with [Redacted]"');
    expect(out).toContain('[Redacted PRIVATE KEY]');
    expect(out.split('\n').filter((l) => l !== '')).toHaveLength(4);
  });

  it("keeps a root's own logMethod hook, running it after the scrub", () => {
    const { stream, text } = lines();
    const seen: unknown[][] = [];
    const root = pino(
      {
        hooks: {
          logMethod(args, method) {
            seen.push([...args]);
            method.apply(this, args);
          },
        },
      },
      stream,
    );
    controllerLogger(root, 'c').info(`sent Bearer ${secrets.bearer}`);
    expect(seen).toEqual([['sent Bearer [Redacted]']]);
    expect(leaked(text())).toEqual([]);
  });

  it('scrubs message strings in the default logger, and writes readable lines with LOG_FORMAT=pretty', () => {
    const written = syncWrites();
    vi.stubEnv('LOG_FORMAT', 'json');
    defaultLogger().info(`login with ${secrets.jwt}`);
    const json = written();
    expect(JSON.parse(json)).toMatchObject({ msg: 'login with [Redacted]' });
    vi.stubEnv('LOG_FORMAT', 'pretty');
    defaultLogger().child({ cluster: 'east' }).warn(fields(), `pretty with ${secrets.jwt}`);
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
    const pretty = written().slice(json.length);
    expect(pretty).toMatch(/WARN.*pretty with \[Redacted\]/);
    expect(pretty).toContain('cluster: "east"');
    expect(() => {
      JSON.parse(pretty);
    }).toThrow();
    expect(leaked(pretty)).toEqual([]);
  });
});
