import { describe, expect, it } from 'vitest';
import { fromStatus, fromTransport } from '../../src/client/index.js';
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
