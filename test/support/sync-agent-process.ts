// The sync agent as its own OS process, as an operator runs it: `rxfleet-sync-agent --config ...`, the
// CLI run from the sources by plain `node` (Node strips the types; bench/register.ts maps the
// sources' `.js` imports to their `.ts` files), so no build step stands between an edit and the
// test. Its JSON log lines are collected; it can be stopped (SIGTERM) or killed (SIGKILL).
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from './binaries.js';
import type { Running } from './captured.js';
import { captured } from './captured.js';
import { eventually } from './wait.js';

/**
 * A running agent process.
 *
 * @example
 * ```ts
 * const agent = startSyncAgent({ configFile, kcpKubeconfig, serviceKubeconfig });
 * await agent.kill();
 * ```
 */
export interface SyncAgentProcess extends Running {
  /** SIGKILL (kill -9) and wait for the exit: no shutdown code runs. */
  kill(): Promise<number | string>;
  /** SIGTERM and wait for the exit (SIGKILL after `ms`). */
  stop(ms?: number): Promise<number | string>;
  /** The JSON log lines printed so far. */
  lines(): readonly Record<string, unknown>[];
  /** The last `n` output lines, for failure messages. */
  tail(n?: number): string;
}

/**
 * How to start one agent.
 *
 * @example
 * ```ts
 * const spec: SyncAgentSpec = { configFile: '/tmp/sync.yaml', kcpKubeconfig: '/tmp/kcp', serviceKubeconfig: '/tmp/svc' };
 * ```
 */
export interface SyncAgentSpec {
  readonly configFile: string;
  readonly kcpKubeconfig: string;
  readonly serviceKubeconfig: string;
  /** LOG_LEVEL (default info). */
  readonly logLevel?: string;
  /** More flags, e.g. `--leader-election-namespace`. */
  readonly args?: readonly string[];
}

/**
 * Writes text to a private temp file and returns its path.
 *
 * @example
 * ```ts
 * const path = tempFile('sync.yaml', yaml);
 * ```
 * @param name - the file's name.
 * @param text - its content.
 * @returns the path.
 */
export function tempFile(name: string, text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'rxfleet-sync-')), name);
  writeFileSync(path, text, { mode: 0o600 });
  return path;
}

/**
 * The `rxfleet-sync-agent` command line the tests run: this Node, the type-stripping hook, the bin's source.
 *
 * @example
 * ```ts
 * spawn(process.execPath, [...cliArgs(['--help'])]);
 * ```
 * @param args - the CLI's arguments.
 * @returns node's arguments.
 */
export function cliArgs(args: readonly string[]): readonly string[] {
  return ['--import', join(repoRoot, 'bench', 'register.ts'), join(repoRoot, 'packages', 'sync-agent', 'src', 'bin.ts'), ...args];
}

/**
 * Starts `rxfleet-sync-agent` with a free probe port.
 *
 * @example
 * ```ts
 * const agent = startSyncAgent(spec);
 * ```
 * @param spec - the files and log level.
 * @returns the process.
 */
export function startSyncAgent(spec: SyncAgentSpec): SyncAgentProcess {
  const args = ['--config', spec.configFile, '--kcp-kubeconfig', spec.kcpKubeconfig, '--service-kubeconfig', spec.serviceKubeconfig, '--port', '0', ...(spec.args ?? [])];
  const child = spawn(process.execPath, [...cliArgs(args)], {
    cwd: repoRoot,
    env: { ...process.env, LOG_LEVEL: spec.logLevel ?? 'info', LOG_FORMAT: 'json' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const r = captured(child);
  const lines = (): Record<string, unknown>[] =>
    r
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .flatMap((l) => {
        try {
          return [JSON.parse(l) as Record<string, unknown>];
        } catch {
          return [];
        }
      });
  const stop = async (ms = 30_000): Promise<number | string> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), ms);
    try {
      return await r.exited;
    } finally {
      clearTimeout(timer);
    }
  };
  return {
    ...r,
    lines,
    tail: (n = 40) => r.output().split('\n').slice(-n).join('\n'),
    stop,
    kill: async () => {
      child.kill('SIGKILL');
      return r.exited;
    },
  };
}

/**
 * Polls `probe` until it returns a value. A probe that throws is tried again; on timeout the error
 * names `what`, the probe's last error and `context()` (e.g. the agent's last log lines).
 *
 * @example
 * ```ts
 * const db = await waitFor('the copy on the service cluster', () => getOrUndefined(service, databases, name, ns), { context: () => agent.tail() });
 * ```
 * @param what - what is awaited, for the message.
 * @param probe - undefined while not yet.
 * @param options - timeout (default 60 s), interval (default 200 ms), context.
 * @returns the probe's value.
 */
export async function waitFor<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  options: { readonly timeoutMs?: number; readonly intervalMs?: number; readonly context?: () => string } = {},
): Promise<T> {
  // The one polling loop of the tests (wait.ts's eventually), with a throwing probe tried again.
  let last = '';
  const found = await eventually(
    what,
    async () => {
      try {
        const v = await probe();
        return v === undefined ? undefined : { v };
      } catch (err) {
        last = err instanceof Error ? err.message : String(err);
        return undefined;
      }
    },
    {
      timeoutMs: options.timeoutMs ?? 60_000,
      intervalMs: options.intervalMs ?? 200,
      context: () => {
        const more = options.context?.() ?? '';
        return `${last === '' ? '' : `last probe error: ${last}`}${more === '' ? '' : `\n--- context ---\n${more}`}`;
      },
    },
  );
  return found.v;
}
