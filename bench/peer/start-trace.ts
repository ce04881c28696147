// What bench/peer/startup.ts preloads (`node --import`) into a controller when it traces a start:
// one stderr line per HTTP/2 stream event (created, sent, answered, closed; a watch's first data and
// the end of its initial list, by label selector) of the first 400
// streams, through Node's supported diagnostics channels (http2.client.stream.*), so the driver
// sees in order what the controller sends before its first write and when each answer came. Each
// line: `@trace <ms since the process started> <CPU ms so far> <event> <stream> <method> <path>`.
// Plain JavaScript written into the work directory: it runs beside the bundle with no loader hooks.
// It costs memory and CPU of its own, so start-up RSS is measured without it.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const source = `import { channel } from 'node:diagnostics_channel';

const MAX_STREAMS = 400;
const ids = new WeakMap();
let next = 0;
const line = (event, stream, headers) => {
  let id = ids.get(stream);
  if (id === undefined) {
    if (next >= MAX_STREAMS) return;
    id = ++next;
    ids.set(stream, id);
  }
  const { user, system } = process.cpuUsage();
  const what = headers === undefined ? '' : \` \${String(headers[':method'] ?? headers[':status'] ?? '')} \${String(headers[':path'] ?? '')}\`;
  process.stderr.write(\`@trace \${performance.now().toFixed(1)} \${((user + system) / 1000).toFixed(0)} \${event} \${id}\${what}\\n\`);
};
channel('http2.client.stream.created').subscribe(({ stream, headers }) => {
  line('created', stream, headers);
  // A watch's initial list ends with the bookmark annotated k8s.io/initial-events-end: its time, by
  // label selector (the inputs' and the outputs' watches apart). Reading 'data' too takes nothing
  // from the client, which reads the same events.
  const path = String(headers[':path'] ?? '');
  if (!path.includes('watch')) return;
  const selector = '/' + (new URL(path, 'https://x').searchParams.get('labelSelector') ?? '');
  let first = true;
  const onData = (chunk) => {
    if (first) line('first-data', stream, { ':method': 'of', ':path': selector });
    first = false;
    if (!String(chunk).includes('initial-events-end')) return;
    line('listed', stream, { ':method': 'by', ':path': selector });
    stream.off('data', onData);
  };
  stream.on('data', onData);
});
channel('http2.client.stream.start').subscribe(({ stream, headers }) => line('sent', stream, headers));
channel('http2.client.stream.finish').subscribe(({ stream, headers }) => line('answered', stream, headers));
channel('http2.client.stream.close').subscribe(({ stream }) => line('closed', stream, undefined));
`;

/**
 * Writes the preload into `dir` and returns its path, for `node --import <path>`.
 *
 * @example
 * const args = ['--import', writeStartTrace(dir), bundle, 'file', kubeconfigDir];
 */
export function writeStartTrace(dir: string): string {
  const path = join(dir, 'start-trace.mjs');
  writeFileSync(path, source);
  return path;
}
