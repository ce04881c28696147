// What installCrds reads before it sends anything: CRD files (several documents each), directories
// of them, and objects; each bad input is a ConfigError naming the file and document, or the object,
// and what is wrong. (Installing and waiting run on a real kube-apiserver: test/integration/envtest-install-crds.test.ts.)
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/index.js';
import { readCrdSources } from '../../src/envtest/crd-sources.js';
import { installCrds } from '../../src/envtest/index.js';
import type { CustomResourceDefinition } from '../../src/resources/index.js';

const widgetYaml = readFileSync(join(import.meta.dirname, '..', '..', 'examples', 'crd-types', 'widget-crd.yaml'), 'utf8');
const gadget: CustomResourceDefinition = {
  metadata: { name: 'gadgets.example.dev' },
  spec: { group: 'example.dev', scope: 'Namespaced', names: { plural: 'gadgets', kind: 'Gadget' }, versions: [{ name: 'v1', served: true, storage: true }] },
};

function dir(files: Readonly<Record<string, string>>): string {
  const d = mkdtempSync(join(tmpdir(), 'rxfleet-crds-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(d, name), text);
  return d;
}

const configError = (fn: () => unknown): string => {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('no error');
};

describe('readCrdSources', () => {
  it('reads every document of a file, skipping empty ones, and objects as they are', () => {
    const d = dir({ 'two.yaml': `${widgetYaml}\n---\n${JSON.stringify({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', ...gadget })}\n---\n` });
    const read = readCrdSources([join(d, 'two.yaml'), gadget]);
    expect(read.map((r) => [r.crd.metadata.name, r.from])).toEqual([
      ['widgets.crd-types.rxfleet.dev', `${join(d, 'two.yaml')}, document 1`],
      ['gadgets.example.dev', `${join(d, 'two.yaml')}, document 2`],
      ['gadgets.example.dev', 'object 2'],
    ]);
  });

  it('reads a directory\'s .yaml, .yml and .json files in name order, nothing else and no subdirectory', () => {
    const d = dir({ 'b.yml': widgetYaml, 'a.json': JSON.stringify({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', ...gadget }), 'README.md': '# CRDs', 'kustomization.txt': 'x' });
    mkdirSync(join(d, 'nested.yaml'));
    expect(readCrdSources([d]).map((r) => r.from)).toEqual([`${join(d, 'a.json')}, document 1`, `${join(d, 'b.yml')}, document 1`]);
  });

  it('names the file, the document and the kind when a document is not a CRD', () => {
    const d = dir({ 'mixed.yaml': `${widgetYaml}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n` });
    expect(configError(() => readCrdSources([join(d, 'mixed.yaml')]))).toBe(`installCrds: ${join(d, 'mixed.yaml')}, document 2: a ConfigMap, not a CustomResourceDefinition`);
  });

  it('names what is missing or unreadable', () => {
    const d = dir({ 'bad.yaml': 'kind: [unclosed\n', 'empty.yaml': '---\n' });
    expect(configError(() => readCrdSources([join(d, 'nope.yaml')]))).toBe(`installCrds: ${join(d, 'nope.yaml')}: no such file or directory`);
    expect(configError(() => readCrdSources([join(d, 'bad.yaml')]))).toMatch(new RegExp(`^installCrds: ${join(d, 'bad.yaml')}: not YAML: .+`));
    expect(configError(() => readCrdSources([join(d, 'empty.yaml')]))).toBe(`installCrds: ${join(d, 'empty.yaml')} holds no CustomResourceDefinition`);
    expect(configError(() => readCrdSources([dir({ 'notes.txt': '' })]))).toMatch(/^installCrds: directory .+ holds no \.yaml, \.yml or \.json file$/);
    expect(configError(() => readCrdSources([gadget, { ...gadget, apiVersion: 'apiextensions.k8s.io/v1beta1' }]))).toBe(
      'installCrds: object 2: apiVersion "apiextensions.k8s.io/v1beta1"; the API server serves CRDs as apiextensions.k8s.io/v1',
    );
    expect(configError(() => readCrdSources([{ ...gadget, spec: { ...gadget.spec, versions: [] } }]))).toBe('installCrds: object 1: gadgets.example.dev: no spec.versions');
  });
});

describe('installCrds', () => {
  it('refuses bad input with a ConfigError before it contacts any server', async () => {
    const nowhere = join(tmpdir(), 'rxfleet-no-such.kubeconfig');
    for (const [call, message] of [
      [() => installCrds(nowhere, []), 'installCrds: no CustomResourceDefinition given'],
      [() => installCrds(nowhere, gadget, { timeoutMs: 0 }), 'installCrds: timeoutMs must be a positive number of milliseconds, not 0'],
      [() => installCrds(nowhere, { ...gadget, kind: 'Gadget' }), 'installCrds: object 1: a Gadget, not a CustomResourceDefinition'],
      [() => installCrds(nowhere, gadget), /^installCrds: .*rxfleet-no-such\.kubeconfig.*/],
    ] as const) {
      await expect(call()).rejects.toBeInstanceOf(ConfigError);
      await expect(call()).rejects.toThrow(message);
    }
  });
});
