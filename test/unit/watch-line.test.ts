import { describe, expect, it } from 'vitest';
import { parseWatchLine } from '../../src/client/watch-line.js';
import { E } from '../../src/fp/index.js';
import { clusterName } from '../../src/index.js';

const east = clusterName('east');

describe('watch line parsing', () => {
  it('decodes applied, deleted and bookmark events', () => {
    const r = parseWatchLine(east, '{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"12"}}}');
    expect(r).toEqual(E.right({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '12' } } }));
  });

  it('turns an ERROR event with 410 into Gone', () => {
    const r = parseWatchLine(east, '{"type":"ERROR","object":{"kind":"Status","code":410,"reason":"Expired","message":"too old"}}');
    expect(E.isLeft(r) && r.left.type).toBe('Gone');
  });

  it('reports a line cut in the middle as Decode, without throwing', () => {
    const r = parseWatchLine(east, '{"type":"ADDED","object":{"metadata":{"na');
    expect(E.isLeft(r) && r.left.type).toBe('Decode');
  });

  it('refuses unknown types and events without metadata', () => {
    expect(E.isLeft(parseWatchLine(east, '{"type":"WAT","object":{"metadata":{}}}'))).toBe(true);
    expect(E.isLeft(parseWatchLine(east, '{"type":"ADDED","object":{}}'))).toBe(true);
    expect(E.isLeft(parseWatchLine(east, '42'))).toBe(true);
  });
});
