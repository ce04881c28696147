// One vocabulary, enforced on the public surface: the checked-in API reports (etc/api/*.api.md,
// which `npm run api-report:check` keeps equal to the built .d.ts) must use each exported name with
// one declaration, spell Kubeconfig/cluster/logger/…Options, and give the glossary's words
// (docs/concepts.md) their one meaning. The second block shows each rule catching its breach.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Report } from './vocabulary-rules.js';
import { vocabularyProblems } from './vocabulary-rules.js';
import { repoRoot } from './type-check-support.js';

const dir = join(repoRoot, 'etc', 'api');
const reports: Report[] = readdirSync(dir)
  .filter((f) => f.endsWith('.api.md'))
  .map((f) => ({ entry: f.replace(/\.api\.md$/, ''), text: readFileSync(join(dir, f), 'utf8') }));

const report = (entry: string, body: string): Report => ({ entry, text: `## API Report\n\n\`\`\`ts\n\n${body}\n\n\`\`\`\n` });

describe('the public vocabulary', () => {
  it('holds in every API report', () => {
    expect(reports.length).toBeGreaterThan(20);
    expect(vocabularyProblems(reports)).toEqual([]);
  });

  it('refuses a name exported from two entry points with two declarations, and allows a re-export', () => {
    const cm = '// @public\nexport interface ConfigMap extends KubeObject {\n    readonly data?: Readonly<Record<string, string>>;\n}';
    expect(vocabularyProblems([report('rxfleet', cm), report('resources', cm)])).toEqual([]);
    const other = '// @public\nexport interface ConfigMap extends KubeObject {\n    readonly data?: Record<string, string>;\n}';
    expect(vocabularyProblems([report('rxfleet', other), report('resources', cm)])).toEqual(['ConfigMap: exported from rxfleet, resources with different declarations']);
  });

  it('refuses KubeConfig, …Config options, clusterName, log and Omit<> in options', () => {
    const body = [
      '// @public\nexport type KubeConfigSource = {\n    readonly file: string;\n};',
      '// @public\nexport interface ThingConfig {\n    readonly log: Logger;\n}',
      '// @public\nexport function relatedName(ref: string, clusterName: string): string;',
      '// @public\nexport interface ControllerSpec {\n    readonly queue?: Omit<ReconcileOptions, \'lookup\'>;\n    readonly watchConfig?: InformersOptions;\n}',
      '// @public\nexport interface WatchesOptions extends Omit<WatchStreamOptions, \'namespace\'> {\n    readonly listsPerServer?: number;\n}',
    ].join('\n\n');
    expect(vocabularyProblems([report('streams', body)])).toEqual([
      'streams: ControllerSpec.queue: Omit<> in an option (name the public part: a …Options interface)',
      'streams: ControllerSpec.watchConfig: options are …Options',
      'streams: KubeConfigSource: spells KubeConfig (write Kubeconfig)',
      'streams: ThingConfig.log: a logger is `logger`',
      'streams: ThingConfig: an option type is named …Options, not …Config or …Settings',
      'streams: WatchesOptions: built with Omit<> (name the public part and extend it)',
      "streams: relatedName: clusterName (a cluster's name is `cluster`)",
    ]);
  });

  it("refuses a glossary word as a property of another type, but Kubernetes' own shapes", () => {
    const body = [
      '// @public\nexport interface FanOutOptions {\n    readonly fleet: Observable<FleetEvent>;\n}',
      '// @public\nexport type FanOutItem = {\n    readonly type: \'desired\';\n    readonly source: ObjectKey;\n} | {\n    readonly type: \'removed\';\n    readonly key: string;\n};',
      '// @public\nexport interface PermissionClaim {\n    readonly resource: number;\n}',
    ].join('\n\n');
    expect(vocabularyProblems([report('operators', body), report('resources', '// @public\nexport interface Probe {\n    readonly source?: EventSource;\n}')])).toEqual([
      "operators: FanOutItem.key: string (the glossary's `key` is ObjectKey)",
      "operators: FanOutItem.source: ObjectKey (the glossary's `source` is SourceIdentity)",
      "operators: FanOutOptions.fleet: Observable<FleetEvent> (the glossary's `fleet` is FleetView or Fleet or FleetView | undefined)",
    ]);
  });
});
