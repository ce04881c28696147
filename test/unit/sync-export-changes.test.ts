// The live agent's watch of the exports it checks against (export-changes.ts), in virtual time: the
// first state each watch sees counts as a change; a change of the keeper or the entries comes out
// `debounceMs` after the last one, coalesced across exports; kcp's own updates (status) and the
// same state seen again change nothing; the client opened for a watch is closed when it ends.
import { Observable } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import type { ClusterClient } from '../../src/client/index.js';
import { exportChanges } from '../../packages/sync-agent/src/export-changes.js';

const scheduler = (): TestScheduler =>
  new TestScheduler((actual, expected) => {
    expect(actual).toEqual(expected);
  });
const line = (type: string, resources: readonly string[], status = ''): string =>
  JSON.stringify({ type, object: { metadata: { name: 'x', annotations: { 'sync.rxfleet.dev/agent': 'rxfleet-sync' } }, spec: { resources: resources.map((name) => ({ name, group: 'g', schema: `v1.${name}.g` })) }, status: { identityHash: status } } });
// A client whose one watch is `lines`; it counts the watches opened and the clients closed.
const clientOf = (lines: Observable<string>, seen: { opened: number; closed: number }): { readonly client: ClusterClient; readonly close: () => void } => {
  seen.opened++;
  return { client: { cluster: 'eu#kcp-export', watch: () => lines } as unknown as ClusterClient, close: () => {
      seen.closed++;
    } };
};

describe('sync agent, live: changes of the exports checked against', () => {
  it('emits the first state and each change of keeper or entries, coalesced; not status updates; closes what it opened', () => {
    const ts = scheduler();
    ts.run(({ cold, expectObservable, flush }) => {
      const seen = { opened: 0, closed: 0 };
      const a = cold('a-b---c-------d---', { a: line('ADDED', ['dbs']), b: line('MODIFIED', ['dbs'], 'hash'), c: line('MODIFIED', ['dbs', 'theirs']), d: line('MODIFIED', ['dbs', 'theirs'], 'other') });
      const b = cold('------e---------', { e: line('MODIFIED', []) });
      const changes = exportChanges([{ apiExport: 'x', open: () => clientOf(a, seen) }, { apiExport: 'x', open: () => clientOf(b, seen) }], { debounceMs: 3, scheduler: ts });
      // a's first state at 0, b's first at 6 and a's change at 6: one emission 3 after each burst.
      expectObservable(changes, '^ 19ms !').toBe('---x-----x', { x: undefined });
      flush();
      expect(seen).toEqual({ opened: 2, closed: 2 });
    });
  });
});
