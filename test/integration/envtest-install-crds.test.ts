// rxfleet/envtest's installCrds on the run's real kube-apiserver: the crd-types example's CRD file
// installed and its resource listed at once in every served version (no retry in the test: the
// helper's wait is what makes that hold), and the server's refusals named with the CRD and cause.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterClient } from '../../src/client/index.js';
import { installCrds } from '../../src/envtest/index.js';
import { resource } from '../../src/index.js';
import type { CustomResourceDefinition } from '../../src/resources/index.js';
import { widgets } from '../../examples/crd-types/widget-v1.js';
import { repoRoot } from '../support/binaries.js';
import { sharedKubeApiserver } from '../support/context.js';
import { must } from '../support/wait.js';
import { clientFrom, randomName } from './runtime-support.js';

const widgetCrdFile = join(repoRoot, 'examples', 'crd-types', 'widget-crd.yaml');

/** The example's CRD file under a group no other test uses, so this test installs it, not finds it. */
function freshWidgetCrd(): { file: string; group: string } {
  const group = `${randomName('crds')}.rxfleet.dev`;
  const file = join(mkdtempSync(join(tmpdir(), 'rxfleet-crds-')), 'widget-crd.yaml');
  writeFileSync(file, readFileSync(widgetCrdFile, 'utf8').replaceAll('crd-types.rxfleet.dev', group));
  return { file, group };
}

const crd = (group: string, plural: string, kind: string, name = `${plural}.${group}`): CustomResourceDefinition => ({
  metadata: { name },
  spec: { group, scope: 'Namespaced', names: { plural, kind }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }] },
});

let admin: ClusterClient;
beforeAll(() => {
  admin = clientFrom('kas', sharedKubeApiserver().kubeconfigYaml('admin'));
});
afterAll(() => {
  admin.close();
});

describe('installCrds on kube-apiserver', () => {
  it('installs the crd-types CRD file and its widgets can be listed at once, in every served version', async () => {
    const fresh = freshWidgetCrd();
    const kas = sharedKubeApiserver();
    const installed = await installCrds(kas, [widgetCrdFile, fresh.file], { timeoutMs: 60_000 });
    expect(installed).toEqual([
      { name: 'widgets.crd-types.rxfleet.dev', group: 'crd-types.rxfleet.dev', plural: 'widgets', kind: 'Widget', versions: ['v1', 'v1alpha1'] },
      { name: `widgets.${fresh.group}`, group: fresh.group, plural: 'widgets', kind: 'Widget', versions: ['v1', 'v1alpha1'] },
    ]);
    // No wait here: the helper resolved only once the API serves them.
    const namespace = await kas.createNamespace('crds');
    expect(must(await admin.list(widgets, { namespace }), 'list the example\'s widgets').items).toEqual([]);
    for (const version of ['v1', 'v1alpha1']) {
      const fresher = resource({ group: fresh.group, version, plural: 'widgets', kind: 'Widget', namespaced: true });
      expect(must(await admin.list(fresher, { namespace }), `list ${fresh.group}/${version} widgets`).items).toEqual([]);
    }
    // Installing again changes nothing and waits for nothing new.
    expect(await installCrds(kas.kubeconfigPath('admin'), fresh.file)).toEqual([installed[1]]);
  });

  it('names the CRD and the server\'s answer when the server refuses it', async () => {
    const group = `${randomName('crds')}.rxfleet.dev`;
    await expect(installCrds(sharedKubeApiserver(), crd(group, 'gizmos', 'Gizmo', `wrong.${group}`))).rejects.toThrow(new RegExp(`^installCrds: CustomResourceDefinition wrong\\.${group.replaceAll('.', '\\.')} \\(object 1\\): .*must be spec\\.names\\.plural\\+"\\."\\+spec\\.group`));
  });

  it('fails as soon as the server will not accept a CRD\'s names, naming the CRD and the reason', async () => {
    const group = `${randomName('crds')}.rxfleet.dev`;
    await installCrds(sharedKubeApiserver(), crd(group, 'gizmos', 'Gizmo'), { timeoutMs: 60_000 });
    // Another plural of the same group claiming the kind Gizmo (and its list kind): never Established.
    await expect(installCrds(sharedKubeApiserver(), crd(group, 'gadgets', 'Gizmo'), { timeoutMs: 60_000 })).rejects.toThrow(new RegExp(`^installCrds: CustomResourceDefinition gadgets\\.${group.replaceAll('.', '\\.')} will not be served: NamesAccepted is False \\(ListKindConflict\\): "GizmoList" is already in use$`));
  });
});
