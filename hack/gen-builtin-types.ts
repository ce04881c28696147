// Generates src/resources/: TypeScript types and resource descriptors for the built-in APIs that
// controllers touch most, from a real kube-apiserver's discovery and OpenAPI v3 (never by hand).
//
//   node --import ./bench/register.ts hack/gen-builtin-types.ts                 start a kube-apiserver (test harness)
//   node --import ./bench/register.ts hack/gen-builtin-types.ts --kubeconfig k  use a running server
//   ... --dump dir   also save what was fetched;   ... --from dir   generate from a saved dump, offline
//
// The server is the harness's version (hack/versions.env), so the types follow the version we test
// on; test/integration/resources-builtin.test.ts fails when src/resources/ no longer matches it.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import { startKubeApiserver } from '../test/support/kube-apiserver.js';
import type { GroupVersionInput } from './builtin-types/emit.js';
import { builtinFiles, fetchInputs, groupVersions } from './builtin-types/generate.js';

const outDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'resources');

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i < 0 ? undefined : process.argv[i + 1];
}

const dumpName = (g: { readonly group: string; readonly version: string }): string => `${g.group === '' ? 'core' : g.group}_${g.version}.json`;

async function inputs(): Promise<GroupVersionInput[]> {
  const from = arg('--from');
  if (from !== undefined) {
    return groupVersions.map((g) => ({ ...g, ...(JSON.parse(readFileSync(join(from, dumpName(g)), 'utf8')) as { discovery: unknown; openapi: unknown }) }));
  }
  const kubeconfig = arg('--kubeconfig');
  if (kubeconfig !== undefined) {
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig);
    return fetchInputs(kc);
  }
  console.error('starting kube-apiserver + etcd from the test harness (~/.cache/rxfleet/bin) ...');
  const kas = await startKubeApiserver();
  try {
    return await fetchInputs(kas.kubeConfig('admin'));
  } finally {
    await kas.stop();
  }
}

const all = await inputs();
const dump = arg('--dump');
if (dump !== undefined) {
  mkdirSync(dump, { recursive: true });
  for (const g of all) writeFileSync(join(dump, dumpName(g)), JSON.stringify({ discovery: g.discovery, openapi: g.openapi }));
}
const files = builtinFiles(all);
rmSync(outDir, { recursive: true, force: true });
for (const [name, text] of files) {
  mkdirSync(dirname(join(outDir, name)), { recursive: true });
  writeFileSync(join(outDir, name), text);
}
console.error(`wrote ${files.size} files to ${outDir}`);
