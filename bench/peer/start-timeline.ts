// A controller's start as a timeline, read from its stderr (bench/peer/startup.ts with BENCH_TRACE=1):
// rxfleet's log lines ("controller running", "cluster engaged", "cache synced", …) and its HTTP/2
// streams (bench/peer/start-trace.ts: times and CPU measured in the process), and MCR's HTTP/2
// requests and answers (Go's GODEBUG=http2debug=1 lines, timed when the driver reads them). Events
// of one kind (the same step for every cluster) are folded into one line: first, last, count.
import type { Readable } from 'node:stream';

interface Kind {
  readonly what: string;
  first: number;
  last: number;
  count: number;
  /** CPU ms of the process at the first event, when it reports it. */
  cpu?: number;
}

/** The same request to every cluster is one kind: the cluster's path segment and query values are left out. */
function shape(path: string): string {
  const [p = '', q] = path.split('?');
  const keys = q === undefined ? '' : `?${q.split('&').map((kv) => kv.split('=')[0]).join('&')}`;
  return `${p.replace(/^\/clusters\/[^/]+/, '/clusters/*')}${keys}`;
}

/** Timeline of one start. */
export interface StartTimeline {
  /** The kinds seen up to `untilMs` (ms from spawn), in the order of their first event. */
  lines(untilMs: number): string[];
}

/**
 * Reads `output` from spawn time `t0` (performance.now()).
 *
 * @example
 * const timeline = startTimeline(child.stderr, performance.now());
 * console.log(timeline.lines(firstWriteMs).join('\n'));
 */
export function startTimeline(output: Readable, t0: number): StartTimeline {
  const kinds = new Map<string, Kind>();
  const note = (what: string, at: number, cpu?: number): void => {
    const k = kinds.get(what);
    if (k === undefined) kinds.set(what, { what, first: at, last: at, count: 1, ...(cpu === undefined ? {} : { cpu }) });
    else {
      k.last = at;
      k.count += 1;
    }
  };
  let goMethod: string | undefined;
  let rest = '';
  output.on('data', (chunk: Buffer) => {
    const now = performance.now() - t0;
    const text = rest + chunk.toString('utf8');
    const lines = text.split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) {
      const trace = /^@trace (\S+) (\S+) (\S+) \d+(?: (\S*) (\S*))?/.exec(line);
      if (trace !== null) {
        const [, at = '', cpu = '', event = '', method = '', path = ''] = trace;
        note(`${event} ${method} ${shape(path)}`.trim(), Number(at), Number(cpu));
        continue;
      }
      const msg = /"msg":"([^"]*)"/.exec(line);
      if (msg !== null) {
        note(`log: ${msg[1] ?? ''}`, now);
        continue;
      }
      const header = /http2: Transport encoding header "(:method|:path)" = "([^"]*)"/.exec(line);
      if (header?.[1] === ':method') goMethod = header[2];
      else if (header !== null) note(`sent ${goMethod ?? ''} ${shape(header[2] ?? '')}`, now);
      else if (line.includes('http2: decoded hpack field header field ":status"')) note('answered (any request)', now);
      else if (line.includes('http2: Transport creating client conn')) note('connection opened', now);
    }
  });
  return {
    lines: (untilMs) =>
      [...kinds.values()]
        .filter((k) => k.first <= untilMs)
        .sort((a, b) => a.first - b.first)
        .map((k) => `  ${k.first.toFixed(1).padStart(7)}${k.count > 1 ? ` … ${k.last.toFixed(1).padStart(7)} ×${k.count}` : ''.padEnd(18)}${k.cpu === undefined ? '' : ` cpu ${k.cpu}`}  ${k.what}`),
  };
}
