// What rxfleet writes to stderr outside its logger (the exit line of `main`, the error line of the
// CLI, `rxfleet get`'s problems) says what went wrong without the credentials in it.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runCli } from '../../packages/cli/src/main.js';
import { main } from '../../src/runtime/main.js';

const canaries = ['pw-canary-hunter2', 'at-canary-0a1b2c3d'];

function stderr(): () => string {
  const written: string[] = [];
  vi.spyOn(process.stderr, 'write').mockImplementation((data: string | Uint8Array) => {
    written.push(String(data));
    return true;
  });
  return () => written.join('');
}

describe('stderr outside the logger', () => {
  const exitCode = process.exitCode;
  afterEach(() => {
    vi.restoreAllMocks();
    vi.useRealTimers();
    process.exitCode = exitCode;
  });

  it("scrubs the error line `main` writes when the program's setup throws", async () => {
    // main exits the process 5 s after it returns: that timer is faked and dropped.
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    const text = stderr();
    const result = await main(() => {
      throw new Error(`cannot reach https://admin:${canaries[0]}@hub.example/?access_token=${canaries[1]}`);
    });
    const out = text();
    expect(out).toContain('failed: cannot reach https://admin:[Redacted]@hub.example/');
    for (const c of canaries) expect(out).not.toContain(c);
    for (const c of canaries) expect(result.message).not.toContain(c);
  });

  it('scrubs what the CLI echoes of its arguments, in its error line and in `rxfleet get`’s problems', async () => {
    const text = stderr();
    await runCli(['get', 'configmaps', '--provider', `kubeconfig:https://admin:${canaries[0]}@hub.example/?access_token=${canaries[1]},a,b`]);
    await runCli(['get', 'configmaps', '--provider', `/nowhere/access_token=${canaries[1]}`, '--timeout-ms', '2000']);
    const out = text();
    expect(out).toContain('rxfleet: --provider');
    expect(out).toContain('rxfleet get: no cluster found by');
    for (const c of canaries) expect(out).not.toContain(c);
  });
});
