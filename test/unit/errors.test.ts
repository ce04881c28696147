import { describe, expect, it } from 'vitest';
import { fromStatus, fromTransport, kubeError } from '../../src/client/index.js';
import { scrubSecrets } from '../../src/core/scrub.js';
import { clusterName, isRetryable } from '../../src/index.js';

const east = clusterName('east');

describe('the error union', () => {
  it('prefers the Status reason over the HTTP code', () => {
    const e = fromStatus(east, 409, { kind: 'Status', code: 409, reason: 'AlreadyExists', message: 'configmaps "a" already exists' });
    expect(e.type).toBe('AlreadyExists');
    expect(e.code).toBe(409);
  });

  it.each([
    [400, 'BadRequest'],
    [401, 'Unauthorized'],
    [403, 'Forbidden'],
    [404, 'NotFound'],
    [405, 'MethodNotAllowed'],
    [409, 'Conflict'],
    [410, 'Gone'],
    [422, 'Invalid'],
    [429, 'TooManyRequests'],
    [500, 'Transient'],
    [503, 'Transient'],
    [504, 'Timeout'],
    [418, 'Unknown'],
  ] as const)('maps HTTP %i without a Status to %s', (code, tag) => {
    expect(fromStatus(east, code, undefined).type).toBe(tag);
  });

  it('maps an Expired reason to Gone, as a watch ERROR event sends it', () => {
    expect(fromStatus(east, 410, { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version' }).type).toBe('Gone');
  });

  it('names the cluster, the request and the cause in the message', () => {
    const e = fromStatus(east, 403, { kind: 'Status', reason: 'Forbidden', message: 'configmaps is forbidden' }, { request: 'GET /api/v1/configmaps' });
    expect(e.message).toBe('cluster "east" GET /api/v1/configmaps → 403 Forbidden: configmaps is forbidden');
  });

  it('keeps the name, kind and group of the object a Status is about, and its causes', () => {
    const body = {
      kind: 'Status',
      code: 422,
      reason: 'Invalid',
      message: 'Widget.example.com "w" is invalid',
      details: { name: 'w', kind: 'Widget', group: 'example.com', causes: [{ reason: 'FieldValueInvalid', field: 'spec.size', message: 'too big' }] },
    };
    const e = fromStatus(east, 422, body);
    expect(e.details).toEqual({ name: 'w', kind: 'Widget', group: 'example.com' });
    expect(e.causes).toEqual([{ reason: 'FieldValueInvalid', field: 'spec.size', message: 'too big' }]);
    expect(Object.isFrozen(e.details)).toBe(true);
  });

  it('leaves details out when the Status names no object, and ignores non-string values', () => {
    expect(fromStatus(east, 404, { kind: 'Status', reason: 'NotFound', details: { retryAfterSeconds: 1 } }).details).toBeUndefined();
    expect(fromStatus(east, 404, { kind: 'Status', details: { name: 'a', kind: 7, group: '' } }).details).toEqual({ name: 'a' });
  });

  it('keeps Retry-After and per-field causes', () => {
    const e = fromStatus(east, 429, { kind: 'Status', details: { causes: [{ field: 'x' }] } }, { retryAfterSeconds: 3 });
    expect(e.retryAfterSeconds).toBe(3);
    expect(e.causes).toEqual([{ field: 'x' }]);
  });

  it('classifies transport failures', () => {
    const err = (code: string) => Object.assign(new Error(`boom ${code}`), { code });
    expect(fromTransport(east, err('ECONNREFUSED')).type).toBe('ClusterUnreachable');
    expect(fromTransport(east, err('ECONNRESET')).type).toBe('Transient');
    expect(fromTransport(east, err('DEPTH_ZERO_SELF_SIGNED_CERT')).type).toBe('Tls');
    expect(fromTransport(east, err('UNABLE_TO_VERIFY_LEAF_SIGNATURE')).type).toBe('Tls');
    expect(fromTransport(east, err('ERR_TLS_CERT_ALTNAME_INVALID')).type).toBe('Tls');
  });

  it('says which errors a plain retry can fix', () => {
    expect(isRetryable(fromStatus(east, 503, undefined))).toBe(true);
    expect(isRetryable(fromStatus(east, 429, undefined))).toBe(true);
    expect(isRetryable(fromStatus(east, 409, undefined))).toBe(false);
    expect(isRetryable(fromStatus(east, 403, undefined))).toBe(false);
  });

  it('freezes error values', () => {
    expect(Object.isFrozen(fromStatus(east, 404, undefined))).toBe(true);
  });
});

// A gateway in front of the API server that answers an error page echoing the request it refused.
const token = 'eyJhbGciOiJSUzI1NiJ9.c2VjcmV0LXRva2Vu.sig';
const keyLines = ['MIIEpAIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun', 'VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK'];
const pemKey = ['-----BEGIN RSA PRIVATE KEY-----', ...keyLines, '-----END RSA PRIVATE KEY-----'].join('\n');
const gatewayBody = [
  '<html><body><h1>502 Bad Gateway</h1><pre>',
  'GET /api/v1/namespaces/default/configmaps HTTP/1.1',
  `Authorization: Bearer ${token}`,
  `X-Debug: {"token":"${token}","user":"system:serviceaccount:fleet:controller"}`,
  'client key on file:',
  pemKey,
  `client-key-data: ${Buffer.from(pemKey).toString('base64')}`,
  '</pre><p>upstream connect error or disconnect/reset before headers</p></body></html>',
].join('\n');

describe('scrubbing credentials out of error bodies', () => {
  const leaks = (text: string) => [token, ...keyLines, 'LS0tLS1CRUdJTi'].filter((s) => text.includes(s));

  it('removes Authorization headers, bearer tokens, "token" values and PEM keys, keeping the rest', () => {
    const out = scrubSecrets(gatewayBody);
    expect(leaks(out)).toEqual([]);
    expect(out).toContain('502 Bad Gateway');
    expect(out).toContain('Authorization: [Redacted]');
    expect(out).toContain('"token":"[Redacted]","user":"system:serviceaccount:fleet:controller"');
    expect(out).toContain('[Redacted RSA PRIVATE KEY]');
    expect(out).toContain('upstream connect error');
    expect(scrubSecrets(out)).toBe(out);
  });

  it.each([
    ['a bearer token in prose', `retry with Bearer ${token} later`, 'retry with Bearer [Redacted] later'],
    ['a query parameter', `GET /x?access_token=${token}&watch=1`, 'GET /x?access_token=[Redacted]&watch=1'],
    ['a YAML password', 'password: hunter2\nusername: admin', 'password: [Redacted]\nusername: admin'],
    ['a camelCase key', `{"serviceAccountToken": "${token}"}`, '{"serviceAccountToken": "[Redacted]"}'],
    ['a certificate cut short', '-----BEGIN CERTIFICATE-----\nMIIB', '[Redacted CERTIFICATE]'],
    ['an ordinary Status message', 'configmaps "a" is forbidden: User "x" cannot get resource "configmaps"', 'configmaps "a" is forbidden: User "x" cannot get resource "configmaps"'],
    ['a file path', 'tokenFile: /var/run/secrets/token', 'tokenFile: /var/run/secrets/token'],
  ])('handles %s', (_what, text, want) => {
    expect(scrubSecrets(text)).toBe(want);
  });

  it('scrubs a plain-text body before it enters a KubeError, even where the 500-character cut would split a key', () => {
    const e = fromStatus(east, 502, `${'x'.repeat(420)}\n${gatewayBody}`, { request: 'GET /api/v1/configmaps' });
    expect(leaks(e.message)).toEqual([]);
    expect(leaks(JSON.stringify(e))).toEqual([]);
    expect(e.type).toBe('Transient');
  });

  it('scrubs a Status message and its causes, and any detail given to kubeError', () => {
    const e = fromStatus(east, 401, { kind: 'Status', reason: 'Unauthorized', message: `token ${token} rejected: Bearer ${token}`, details: { causes: [{ field: 'spec.token', message: `"token":"${token}"` }] } });
    expect(leaks(JSON.stringify(e))).toEqual([]);
    expect(e.causes).toEqual([{ field: 'spec.token', message: '"token":"[Redacted]"' }]);
    expect(leaks(kubeError('Unauthorized', east, `could not obtain credentials: plugin printed Authorization: Bearer ${token}`).message)).toEqual([]);
  });
});
