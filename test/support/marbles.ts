// The one TestScheduler of the project's marble tests: frames compared with vitest's deep equality.
import { TestScheduler } from 'rxjs/testing';
import { expect } from 'vitest';

/** A fresh TestScheduler whose assertions are vitest's `toEqual`; make one per test. */
export function testScheduler(): TestScheduler {
  return new TestScheduler((actual, expected) => {
    expect(actual).toEqual(expected);
  });
}
