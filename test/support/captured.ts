// A child process whose output is collected and whose exit is awaited: what the example and
// replica tests start and read.
import type { ChildProcess } from 'node:child_process';

/** A started process: its handle, what it printed so far, and its exit. */
export interface Running {
  readonly child: ChildProcess;
  /** stdout + stderr so far. */
  output(): string;
  /** Resolves with the exit code (or the signal's name) once the process has exited. */
  readonly exited: Promise<number | string>;
}

/** Collects a started process's stdout + stderr and its exit, as a {@link Running}. */
export function captured(child: ChildProcess & { readonly stdout: NodeJS.ReadableStream; readonly stderr: NodeJS.ReadableStream }): Running {
  let out = '';
  child.stdout.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr.on('data', (b: Buffer) => (out += b.toString()));
  const exited = new Promise<number | string>((resolve) => {
    child.on('exit', (code, signal) => {
      resolve(code ?? signal ?? 'unknown');
    });
  });
  return { child, output: () => out, exited };
}
