// The RSS a controller reached by the end of its import and set-up (issue 26 item 4's goal, ≤ 60 MiB):
// its VmHWM read the moment its output first shows a line that marks that point (rxfleet's
// "controller running", logged by `run()` to stderr before the provider engages any cluster). A contender with
// no such line (MCR logs errors only) has no figure (NaN).
import type { Readable } from 'node:stream';
import { procStats } from './proc-stats.js';

/**
 * Watches `output` for `line` and reads `pid`'s VmHWM when it first appears; the returned function
 * gives that figure in MiB (NaN until then, or without a `line`).
 *
 * @example
 * const setupRss = peakAtLine(child.stderr, child.pid, /"msg":"controller running"/);
 */
export function peakAtLine(output: Readable, pid: number, line: RegExp | undefined): () => number {
  let mib = NaN;
  if (line === undefined) return () => mib;
  // Lines may be split across chunks: the text seen so far is kept until the line appears (a few
  // start-up lines).
  let seen = '';
  const onData = (chunk: Buffer): void => {
    seen += chunk.toString('utf8');
    if (!line.test(seen)) return;
    output.off('data', onData);
    seen = '';
    try {
      mib = procStats(pid).peakRssBytes / 2 ** 20;
    } catch {
      // exited already: no figure
    }
  };
  output.on('data', onData);
  return () => mib;
}
