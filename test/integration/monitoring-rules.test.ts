// deploy/monitoring's alerting rules on Prometheus's own rule evaluator: promtool, built from the Go
// module proxy on first use (`hack/ensure-binaries.sh --only promtool`, cached like the control
// planes), checks alerts.yaml and the PrometheusRule's groups, runs the unit tests of
// alerts.test.yaml (input series -> the alerts expected), and parses every dashboard query. The
// generated files (dashboard.json, prometheusrule.yaml, the scaffold's copies) must be what
// hack/gen-monitoring.ts writes.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dump, load } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { monitoringFiles } from '../../hack/monitoring/files.js';
import { repoRoot } from '../support/binaries.js';
import { withVariables } from './monitoring-promql.js';

const monitoring = join(repoRoot, 'deploy', 'monitoring');
const tmp = mkdtempSync(join(tmpdir(), 'rxfleet-monitoring-'));
let promtool = '';

interface Rule {
  alert: string;
  expr: string;
  annotations: Record<string, string>;
}
interface RulesFile {
  groups: { name: string; rules: Rule[] }[];
}
interface UnitTests {
  tests: { alert_rule_test?: { alertname: string; exp_alerts: { exp_labels?: Record<string, string> }[] }[] }[];
}

const alerts = (): RulesFile => load(readFileSync(join(monitoring, 'alerts.yaml'), 'utf8')) as RulesFile;

/** Runs a command to its end: exit code and both outputs. */
function exec(cmd: string, args: readonly string[], inheritStderr = false): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', inheritStderr ? 'inherit' : 'pipe'] });
    let out = '';
    child.stdout?.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr?.on('data', (b: Buffer) => (out += b.toString()));
    child.once('error', reject);
    child.once('close', (code) => {
      resolve({ code, out });
    });
  });
}

async function promtoolOk(...args: string[]): Promise<string> {
  const r = await exec(promtool, args);
  if (r.code !== 0) throw new Error(`promtool ${args.join(' ')} exited ${r.code}:\n${r.out}`);
  return r.out;
}

beforeAll(async () => {
  // Cached: ~0.03 s. Cold: a one-time build whose progress shows on stderr (hack/README.md has its time).
  const r = await exec('bash', [join(repoRoot, 'hack', 'ensure-binaries.sh'), '--only', 'promtool', '--print-env'], true);
  const path = /^RXFLEET_PROMTOOL_BIN=(.+)$/m.exec(r.out)?.[1];
  if (r.code !== 0 || path === undefined) throw new Error(`hack/ensure-binaries.sh --only promtool failed (${r.code}):\n${r.out}`);
  promtool = path;
}, 3_600_000);
afterAll(() => {
  rmSync(tmp, { recursive: true, force: true });
});

describe('deploy/monitoring on promtool', () => {
  it('has the generated files hack/gen-monitoring.ts writes (the PrometheusRule, the dashboard, the scaffold copies)', () => {
    const stale = [...monitoringFiles(repoRoot)].filter(([path, text]) => readFileSync(join(repoRoot, path), 'utf8') !== text).map(([path]) => path);
    expect(stale, 'run node --import ./bench/register.ts hack/gen-monitoring.ts').toEqual([]);
  });

  it('checks alerts.yaml, and the PrometheusRule holds the very same groups', async () => {
    expect(await promtoolOk('check', 'rules', '--lint=all', '--lint-fatal', join(monitoring, 'alerts.yaml'))).toMatch(/SUCCESS: \d+ rules found/);
    const cr = load(readFileSync(join(monitoring, 'prometheusrule.yaml'), 'utf8')) as { kind: string; spec: RulesFile };
    expect(cr.kind).toBe('PrometheusRule');
    expect(cr.spec).toEqual(alerts());
    const spec = join(tmp, 'prometheusrule-spec.yaml');
    writeFileSync(spec, dump(cr.spec));
    await promtoolOk('check', 'rules', '--lint=all', '--lint-fatal', spec);
  });

  it('fires every alert in the unit tests of alerts.test.yaml, and only where expected', async () => {
    // The expected annotations are the rendered summaries; description and runbook are checked below.
    const doc = alerts();
    for (const g of doc.groups) for (const r of g.rules) r.annotations = { summary: r.annotations.summary ?? '' };
    writeFileSync(join(tmp, 'alerts.yaml'), dump(doc, { lineWidth: -1 }));
    writeFileSync(join(tmp, 'alerts.test.yaml'), readFileSync(join(monitoring, 'alerts.test.yaml')));
    const out = await promtoolOk('test', 'rules', join(tmp, 'alerts.test.yaml'));
    expect(out).toContain('SUCCESS');
    const tests = load(readFileSync(join(monitoring, 'alerts.test.yaml'), 'utf8')) as UnitTests;
    const firing = new Set(tests.tests.flatMap((t) => (t.alert_rule_test ?? []).filter((a) => a.exp_alerts.length > 0).map((a) => a.alertname)));
    expect(doc.groups.flatMap((g) => g.rules.map((r) => r.alert)).filter((a) => !firing.has(a)), 'alerts no unit test sees fire').toEqual([]);
  });

  it('words every alert for someone on call: summary, description and runbook, naming only labels the alert carries', () => {
    const tests = load(readFileSync(join(monitoring, 'alerts.test.yaml'), 'utf8')) as UnitTests;
    const carried = new Map<string, Set<string>>();
    for (const a of tests.tests.flatMap((t) => t.alert_rule_test ?? [])) {
      for (const e of a.exp_alerts) for (const l of Object.keys(e.exp_labels ?? {})) carried.set(a.alertname, (carried.get(a.alertname) ?? new Set()).add(l));
    }
    const problems = alerts().groups.flatMap((g) =>
      g.rules.flatMap((r) => {
        const missing = ['summary', 'description', 'runbook'].filter((k) => (r.annotations[k] ?? '').length < 20).map((k) => `${r.alert}: no ${k}`);
        const used = Object.values(r.annotations).flatMap((text) => [...text.matchAll(/\$labels\.(\w+)/g)].map((m) => m[1] ?? ''));
        return [...missing, ...used.filter((l) => !(carried.get(r.alert)?.has(l) ?? false)).map((l) => `${r.alert}: $labels.${l} is not a label of its alerts`)];
      }),
    );
    expect(problems).toEqual([]);
  });

  it('parses every dashboard query and variable with Prometheus’s parser', async () => {
    const d = JSON.parse(readFileSync(join(monitoring, 'dashboard.json'), 'utf8')) as { panels: { targets?: { expr: string }[] }[]; templating: { list: { query?: unknown }[] } };
    const exprs = d.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));
    const variables = d.templating.list.flatMap((v) => {
      const q = (v.query as { query?: string } | undefined)?.query;
      const m = q === undefined ? null : /^label_values\((.+),\s*\w+\)$/.exec(q);
      return m?.[1] === undefined ? [] : [m[1]];
    });
    expect(exprs.length).toBeGreaterThan(25);
    const rules = { groups: [{ name: 'dashboard', rules: [...exprs, ...variables].map((expr, i) => ({ record: `dashboard:query_${i}`, expr: withVariables(expr) })) }] };
    const file = join(tmp, 'dashboard-queries.yaml');
    writeFileSync(file, dump(rules, { lineWidth: -1 }));
    expect(await promtoolOk('check', 'rules', file)).toContain(`SUCCESS: ${rules.groups[0]?.rules.length ?? 0} rules found`);
  });
});
