// What a logger wrote, for the log tests: the chunks of a stream given to an injected pino root, and
// the writes to file descriptor 2 of rxfleet's own logger (pino's synchronous destination and
// pino-pretty both write with fs.writeSync).
import fs from 'node:fs';
import { Writable } from 'node:stream';
import type { Logger } from 'pino';
import { pino } from 'pino';
import { vi } from 'vitest';

/** A stream to give `pino(stream)`, and everything written to it so far: as text, and chunk by chunk (a log line each). */
export function lines(): { stream: Writable; text: () => string; chunks: () => readonly string[] } {
  const out: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      out.push(chunk.toString());
      cb();
    },
  });
  return { stream, text: () => out.join(''), chunks: () => out };
}

/** A pino logger (JSON, level info) whose lines are kept in `lines` as they are written, one string each. */
export function capturedLogger(): { log: Logger; lines: readonly string[] } {
  const out = lines();
  return { log: pino(out.stream), lines: out.chunks() };
}

/** Captures fs.writeSync (undone by `vi.restoreAllMocks()`) and returns what was written so far. */
export function syncWrites(): () => string {
  const written: string[] = [];
  vi.spyOn(fs, 'writeSync').mockImplementation((_fd, data: unknown) => {
    written.push(String(data));
    return String(data).length;
  });
  return () => written.join('');
}
