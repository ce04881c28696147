// One grace period everywhere (issue 29): a Pod's terminationGracePeriodSeconds must outlast the
// runtime's shutdown deadline with room to spare, or the kubelet's SIGKILL lands while the last
// reconciles drain and before the leader releases its Lease (the standby then waits the whole lease
// duration). Reads every place that states it: deploy/ha, the `rxfleet init` scaffold's
// Deployment, docs/guide.md and docs/deploy.md, against the runtime's default deadline.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAll } from 'js-yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultScaffoldValues, scaffold } from '../../packages/cli/src/scaffold.js';
import { defaultShutdownDeadlineMs } from '../../src/runtime/lifecycle.js';

const root = join(import.meta.dirname, '..', '..');
const tmp = mkdtempSync(join(tmpdir(), 'rxfleet-grace-'));
afterAll(() => {
  rmSync(tmp, { recursive: true, force: true });
});

/**
 * What a stop needs after the deadline: the leader's Lease release (one request), closing the
 * watches and the probe server, and `main`'s 5 s wait for a user's stray handles before it exits.
 */
const MARGIN_S = 10;

interface Doc {
  readonly kind?: string;
  readonly spec?: { readonly template?: { readonly spec?: { readonly terminationGracePeriodSeconds?: number } } };
}

/** The grace period of the one Deployment in a manifest file (undefined: the field is missing). */
function graceOfDeployment(file: string): number | undefined {
  const deployments = (loadAll(readFileSync(file, 'utf8')) as Doc[]).filter((d) => d.kind === 'Deployment');
  expect(deployments, file).toHaveLength(1);
  return deployments[0]?.spec?.template?.spec?.terminationGracePeriodSeconds;
}

/** Every grace period a doc page states, as `terminationGracePeriodSeconds: N` (in YAML or prose). */
function graceInDoc(file: string): number[] {
  return [...readFileSync(file, 'utf8').matchAll(/terminationGracePeriodSeconds: (\d+)/g)].map((m) => Number(m[1]));
}

describe('the grace period of a Pod', () => {
  const project = join(tmp, 'greeter');
  scaffold(project, defaultScaffoldValues('greeter'));
  const places: Record<string, number[]> = {
    'deploy/ha/deployment.yaml': [graceOfDeployment(join(root, 'deploy', 'ha', 'deployment.yaml')) ?? 0],
    "the scaffold's deploy/deployment.yaml": [graceOfDeployment(join(project, 'deploy', 'deployment.yaml')) ?? 0],
    'docs/guide.md': graceInDoc(join(root, 'docs', 'guide.md')),
    'docs/deploy.md': graceInDoc(join(root, 'docs', 'deploy.md')),
  };

  it.each(Object.keys(places))('%s states one', (place) => {
    expect(places[place]?.length, place).toBeGreaterThan(0);
    expect(places[place], `${place}: no terminationGracePeriodSeconds`).not.toContain(0);
  });

  it('is the same everywhere', () => {
    const values = new Set(Object.values(places).flat());
    expect([...values], JSON.stringify(places)).toHaveLength(1);
  });

  it(`exceeds the runtime's default shutdown deadline by at least ${MARGIN_S} s`, () => {
    for (const [place, values] of Object.entries(places)) {
      for (const v of values) expect(v, place).toBeGreaterThanOrEqual(defaultShutdownDeadlineMs / 1000 + MARGIN_S);
    }
  });
});
