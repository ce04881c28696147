// Types for any resource, against a real kube-apiserver: src/resources/ is exactly what the
// generator makes of this server's OpenAPI v3 (so it never drifts from the version we test on);
// `rxfleet gen types --from-cluster` reads an installed CRD and writes the same types as from its
// YAML; and the crd-types example reconciles Widgets through those generated types.
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import yargs from 'yargs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinFiles, fetchInputs } from '../../hack/builtin-types/generate.js';
import { genCommand } from '../../packages/cli/src/commands/gen.js';
import type { ClusterClient } from '../../src/client/index.js';
import { generateTypes, readCrdFromCluster, readCrds } from '../../packages/cli/src/codegen/index.js';
import type { RunHandle } from '../../src/index.js';
import { configMaps, customResourceDefinitions, isRight, run } from '../../src/index.js';
import { staticProvider } from '../../src/streams/index.js';
import { widgetController } from '../../examples/crd-types/controller.js';
import { widgets } from '../../examples/crd-types/widget-v1.js';
import type { Widget } from '../../examples/crd-types/widget-v1.js';
import { sharedKubeApiserver } from '../support/context.js';
import { repoRoot } from '../support/binaries.js';
import { eventually, must } from '../support/wait.js';
import { clientFrom, kubeApiserverCluster } from './runtime-support.js';

const example = join(repoRoot, 'examples', 'crd-types');
const crdName = 'widgets.crd-types.rxfleet.dev';
const crdYaml = readFileSync(join(example, 'widget-crd.yaml'), 'utf8');
const lines = (text: string): string[] => text.split('\n');

let admin: ClusterClient;
beforeAll(async () => {
  admin = clientFrom('kube-apiserver', sharedKubeApiserver().kubeconfigYaml('admin'));
  const [crd] = readCrds(crdYaml);
  if (crd === undefined) throw new Error('the test CRD YAML has no CRD');
  must(await admin.apply(customResourceDefinitions, crd, { fieldManager: 'codegen-test', force: true }));
  await eventually('the Widget CRD to serve', async () => (isRight(await admin.list(widgets)) ? true : undefined));
});
afterAll(() => {
  admin.close();
});

describe('src/resources', () => {
  it('is what hack/gen-builtin-types.ts generates from the kube-apiserver we test on', async () => {
    const files = builtinFiles(await fetchInputs(sharedKubeApiserver().kubeConfig('admin')));
    const dir = join(repoRoot, 'src', 'resources');
    const committed = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts')).sort();
    expect(committed).toEqual([...files.keys()].sort());
    for (const [path, text] of files) expect(readFileSync(join(dir, path), 'utf8'), `src/resources/${path} is stale: run hack/gen-builtin-types.ts`).toBe(text);
  });
});

describe('rxfleet gen types --from-cluster', () => {
  it('writes the types of the installed CRD, the same as from its YAML but for the header', async () => {
    const out = mkdtempSync(join(tmpdir(), 'rxfleet-gen-'));
    const kubeconfig = sharedKubeApiserver().kubeconfigPath('admin');
    await yargs(['gen', 'types', '--from-cluster', crdName, '--kubeconfig', kubeconfig, '--out', out]).command(genCommand).strict().parseAsync();
    expect(readdirSync(out).sort()).toEqual(['widget-v1.ts', 'widget-v1alpha1.ts']);
    for (const f of ['widget-v1.ts', 'widget-v1alpha1.ts']) {
      const fromCluster = lines(readFileSync(join(out, f), 'utf8'));
      expect(fromCluster[0]).toContain(`from CRD ${crdName}, version`);
      expect(fromCluster.slice(1)).toEqual(lines(readFileSync(join(example, f), 'utf8')).slice(1));
    }
  });

  it('names the server and the CRD when it is not there', async () => {
    await expect(readCrdFromCluster(admin, 'nothings.example.com', 'cluster "kas"')).rejects.toThrow(/^cluster "kas": cannot read CustomResourceDefinition nothings\.example\.com: .+/);
    const [crd] = readCrds(crdYaml);
    expect((await generateTypes({ crds: [await readCrdFromCluster(admin, crdName, 'kas')] })).length).toBe(crd?.spec.versions.length);
  });
});

describe('example: crd-types', () => {
  let handle: RunHandle | undefined;
  afterAll(async () => handle?.stop({ deadlineMs: 0 }));

  it('renders each Widget into a ConfigMap and reports it in the status, through the generated types', async () => {
    const { cluster, namespace } = await kubeApiserverCluster('kas');
    handle = await run(widgetController(staticProvider([cluster]), namespace), { logger: pino({ level: 'silent' }), signals: false, http: { port: 0 } });
    const widget: Widget = {
      metadata: { name: 'blue', namespace },
      spec: { image: 'nginx:1.27', port: 'http', tier: 'premium', env: [{ name: 'MODE', value: 'fast' }], limits: { cpu: '500m', pods: 4 } },
    };
    must(await admin.apply(widgets, widget, { fieldManager: 'codegen-test' }));
    const cm = await eventually('the rendered ConfigMap', async () => {
      const r = await admin.get(configMaps, 'widget-blue', { namespace });
      return isRight(r) ? r.right : undefined;
    });
    expect(cm.data).toEqual({ image: 'nginx:1.27', port: 'http', replicas: '1', tier: 'premium', env: 'MODE=fast', limits: 'cpu=500m,pods=4' });
    const status = await eventually('the Widget status', async () => {
      const r = await admin.get(widgets, 'blue', { namespace });
      return isRight(r) && r.right.status?.settings !== undefined ? r.right.status : undefined;
    });
    expect(status).toEqual({ settings: 'widget-blue', observedGeneration: 1 });
  });
});
