// `npm start` builds exactly the control planes the demo starts (issue 29: it built kcp,
// kube-apiserver and etcd, 23 minutes cold on 2 cores, for a demo that runs only kcp). Reads the
// start script's `hack/ensure-binaries.sh --only …` list and the demo's sources.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const ALL = ['etcd', 'kcp', 'kube-apiserver'];
/** What each starter runs: kcp embeds its etcd; kube-apiserver needs an etcd beside it. */
const NEEDS: Readonly<Record<string, readonly string[]>> = { startKcp: ['kcp'], startKubeApiserver: ['etcd', 'kube-apiserver'], sharedKubeApiserver: ['etcd', 'kube-apiserver'] };

/** The binaries a script builds: its `--only` names, or all three for a plain ensure-binaries/control-planes run. */
function built(script: string): string[] {
  if (script.includes('control-planes')) return ALL;
  const run = /bash hack\/ensure-binaries\.sh((?: --only [\w-]+)*)/.exec(script);
  if (run === null) return [];
  const only = [...(run[1] ?? '').matchAll(/--only ([\w-]+)/g)].map((m) => m[1] ?? '');
  return only.length === 0 ? ALL : only.sort();
}

describe('npm start', () => {
  it('builds only the binaries the demo starts', () => {
    const scripts = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    const demo = readdirSync(join(root, 'demo')).filter((f) => f.endsWith('.ts')).map((f) => readFileSync(join(root, 'demo', f), 'utf8')).join('\n');
    const started = Object.keys(NEEDS).filter((fn) => new RegExp(`\\b${fn}\\(`).test(demo)).flatMap((fn) => NEEDS[fn] ?? []);
    expect(started).toEqual(['kcp']);
    expect(built(scripts.start ?? '')).toEqual([...new Set(started)].sort());
  });
});
