// Parsing a kubeconfig file's bytes into a YAML document off the event loop when it is big: js-yaml
// reads ~30 MB/s, so a 10 MB kubeconfig parsed inline would stall every timer, probe and watch of
// the process for ~0.3 s. Small files parse inline (a worker costs more than they do); big ones in a
// short-lived worker thread, which only hands back the document.
import { createRequire } from 'node:module';
import type { Observable } from 'rxjs';
import { Observable as RxObservable } from 'rxjs';
import { load } from 'js-yaml';

/**
 * Files from this size (bytes) up are parsed in a worker thread: below it, parsing takes a few
 * milliseconds at most and a worker's start-up would cost more.
 *
 * @example
 * ```ts
 * const inWorker = bytes.length >= workerParseBytes;
 * ```
 */
export const workerParseBytes = 256 * 1024;

/**
 * Why a document did not parse, without the input: js-yaml's `message` quotes the text around the
 * error (it may hold a token), and so does V8's JSON.parse. `reason` and the position are kept.
 *
 * @example
 * ```ts
 * const e: ParseFailure = { reason: 'unexpected end of the stream', line: 1, column: 14 };
 * ```
 */
export interface ParseFailure {
  readonly reason: string;
  /** 0-based, as js-yaml's `mark`. */
  readonly line?: number;
  readonly column?: number;
}

/**
 * The failure as one line: `reason at line L, column C` (1-based).
 *
 * @example
 * ```ts
 * parseFailureText({ reason: 'bad indentation', line: 2, column: 0 }); // 'bad indentation at line 3, column 1'
 * ```
 * @param f - the failure.
 * @returns the text.
 */
export function parseFailureText(f: ParseFailure): string {
  return f.line === undefined ? f.reason : `${f.reason} at line ${f.line + 1}, column ${(f.column ?? 0) + 1}`;
}

/**
 * An error thrown by a parse as a ParseFailure; never the message of an unknown error, which may quote input.
 *
 * @example
 * ```ts
 * try { parseText(text); } catch (err) { console.log(parseFailureText(parseFailureOf(err))); }
 * ```
 * @param err - what the parser threw (js-yaml's error has `reason` and `mark`).
 * @returns the failure.
 */
export function parseFailureOf(err: unknown): ParseFailure {
  if (typeof err === 'object' && err !== null && 'reason' in err && typeof err.reason === 'string') {
    const mark = (err as { mark?: { line?: number; column?: number } }).mark;
    const line = mark?.line ?? (err as { line?: number }).line;
    const column = mark?.column ?? (err as { column?: number }).column;
    return line === undefined ? { reason: err.reason } : { reason: err.reason, line, ...(column === undefined ? {} : { column }) };
  }
  return { reason: 'does not parse' };
}

/**
 * Parses a kubeconfig's text: JSON.parse when it looks like JSON (`{` first: kubectl and client
 * libraries often write JSON, which JSON.parse reads ~10× faster than js-yaml), js-yaml otherwise or
 * when JSON.parse refuses it (YAML reads what JSON does, and its errors say where without quoting).
 *
 * @example
 * ```ts
 * parseText('{"contexts":[]}'); // { contexts: [] }
 * ```
 * @param text - the file's text.
 * @returns the document (`undefined` for an empty one).
 * @throws js-yaml's error (with `reason` and `mark`) when the text is not YAML.
 */
export function parseText(text: string): unknown {
  if (/^\s*\{/.test(text)) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      // Fall through: js-yaml says why and where, without quoting the text.
    }
  }
  return load(text);
}

// Plain CommonJS run by the worker (eval), so it needs no TypeScript loader: the same steps as
// parseText, with js-yaml required from the path the main thread resolved.
const workerSource = `
const { parentPort, workerData } = require('node:worker_threads');
const text = new TextDecoder().decode(workerData.bytes);
let doc;
try {
  if (/^\\s*\\{/.test(text)) { try { doc = JSON.parse(text); } catch { doc = undefined; } }
  if (doc === undefined) doc = require(workerData.yaml).load(text);
  parentPort.postMessage({ ok: true, doc });
} catch (err) {
  const mark = err && err.mark;
  parentPort.postMessage({ ok: false, reason: err && typeof err.reason === 'string' ? err.reason : 'does not parse', line: mark ? mark.line : undefined, column: mark ? mark.column : undefined });
}
`;

let yamlPath: string | undefined;

/**
 * A kubeconfig's bytes as a document: inline below {@link workerParseBytes}, in a worker thread
 * from there (one per parse, ended when done or when unsubscribed). Errors with a
 * {@link ParseFailure}.
 *
 * @example
 * ```ts
 * parseKubeconfigBytes(bytes).subscribe((doc: unknown) => console.log(doc));
 * ```
 * @param bytes - the file's content (transferred to the worker when big: do not use it afterwards).
 * @returns the document, once.
 */
export function parseKubeconfigBytes(bytes: Uint8Array): Observable<unknown> {
  return new RxObservable<unknown>((subscriber) => {
    if (bytes.length < workerParseBytes) {
      try {
        subscriber.next(parseText(new TextDecoder().decode(bytes)));
        subscriber.complete();
      } catch (err) {
        subscriber.error(parseFailureOf(err));
      }
      return undefined;
    }
    yamlPath ??= createRequire(import.meta.url).resolve('js-yaml');
    // Transferred, not copied, when the bytes own their buffer (fs.readFile's do for big files).
    const buffer = bytes.buffer;
    const own = buffer instanceof ArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === buffer.byteLength;
    // Taken here, for a big file only, not imported with the module (an ESM import of a built-in
    // builds its whole namespace at start).
    const { Worker } = process.getBuiltinModule('node:worker_threads');
    const worker = new Worker(workerSource, { eval: true, workerData: { bytes, yaml: yamlPath }, transferList: own ? [buffer] : [] });
    worker.once('message', (m: { readonly ok: boolean; readonly doc?: unknown; readonly reason?: string; readonly line?: number; readonly column?: number }) => {
      if (m.ok) {
        subscriber.next(m.doc);
        subscriber.complete();
      } else subscriber.error(parseFailureOf({ reason: m.reason ?? 'does not parse', line: m.line, column: m.column }));
    });
    worker.once('error', (err: Error) => {
      subscriber.error({ reason: `parser thread failed: ${err.message.split('\n')[0] ?? ''}` });
    });
    return () => void worker.terminate();
  });
}
