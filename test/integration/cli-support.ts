// Running the built `rxfleet` bin (@rxfleet/cli) as a user would: compiled with rxfleet once per
// test file into node_modules/.cache (inside the repository, so both resolve their dependencies),
// run with a given Node, its stdout, stderr and exit code collected.
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { KubeConfig } from '@kubernetes/client-node';
import type { ClusterClient } from '../../src/client/index.js';
import { E } from '../../src/fp/index.js';
import { serviceAccounts } from '../../src/resources/index.js';
import { repoRoot } from '../support/binaries.js';
import type { NodeRun } from '../support/node-run.js';
import { runNode } from '../support/node-run.js';

const exec = promisify(execFile);

/** A compiled CLI: run its bin with {@link runCli}. */
export interface BuiltCli {
  readonly bin: string;
}

/** Compiles one project into `outDir`; type errors in files being edited elsewhere do not stop the emit. */
async function compile(project: string, outDir: string, emitted: string): Promise<void> {
  await exec(process.execPath, [join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(repoRoot, project), '--outDir', outDir], { cwd: repoRoot }).catch((err: unknown) => {
    if (!existsSync(emitted)) throw err;
  });
}

/**
 * Compiles rxfleet (tsconfig.build.json) and @rxfleet/cli (packages/cli) from their sources into
 * node_modules/.cache/rxfleet-cli-<name> (one directory per test file, so files in parallel workers
 * do not write over each other), laid out as a user's install: the CLI in cli/, rxfleet beside it
 * in node_modules/rxfleet/, which the bin reaches by its name through rxfleet's exports.
 */
export async function buildCli(name: string): Promise<BuiltCli> {
  const out = join(repoRoot, 'node_modules', '.cache', `rxfleet-cli-${name}`);
  const rxfleet = join(out, 'node_modules', 'rxfleet');
  const cli = join(out, 'cli');
  const bin = join(cli, 'dist', 'bin.js');
  for (const [dir, from] of [[rxfleet, '.'], [cli, join('packages', 'cli')]] as const) {
    mkdirSync(dir, { recursive: true });
    copyFileSync(join(repoRoot, from, 'package.json'), join(dir, 'package.json'));
  }
  await compile('tsconfig.build.json', join(rxfleet, 'dist'), join(rxfleet, 'dist', 'index.js'));
  await compile(join('packages', 'cli', 'tsconfig.build.json'), join(cli, 'dist'), bin);
  return { bin };
}

/** What one run of the bin did. */
export type CliRun = NodeRun;

/** Runs `node <bin> ...args` with `node` (default: this Node) and waits for it (killed after 60 s). */
export function runCli(cli: BuiltCli, args: readonly string[], node = process.execPath): Promise<CliRun> {
  return runNode([cli.bin, ...args], node);
}

/** The system Node (v20 on the test machines), the first `node` on the PATH that is not this one. */
export async function systemNode(): Promise<string> {
  const { stdout } = await exec('which', ['-a', 'node']);
  const found = stdout.split('\n').find((p) => p !== '' && p !== process.execPath && !p.includes('node_modules'));
  if (found === undefined) throw new Error(`no system node besides ${process.execPath}`);
  return found;
}

/** Creates a ServiceAccount and returns a kubeconfig for it (TokenRequest API, one hour) on the same server. */
export async function serviceAccountKubeconfig(admin: ClusterClient, adminYaml: string, namespace: string, name: string): Promise<string> {
  const sa = await admin.apply(serviceAccounts, { metadata: { name, namespace } }, { fieldManager: 'rxfleet-test' });
  if (E.isLeft(sa)) throw new Error(sa.left.message);
  const res = await admin.raw({
    method: 'POST',
    path: `/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`,
    body: JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } }),
  });
  if (E.isLeft(res)) throw new Error(res.left.message);
  const token = (res.right as { status?: { token?: string } }).status?.token;
  if (token === undefined) throw new Error('TokenRequest gave no token');
  const kc = new KubeConfig();
  kc.loadFromString(adminYaml);
  const cluster = kc.getCurrentCluster();
  if (cluster === null) throw new Error('kubeconfig without a cluster');
  const out = new KubeConfig();
  out.loadFromClusterAndUser(cluster, { name, token });
  return out.exportConfig();
}

/** A kubeconfig document with its (single) context renamed, so the file provider names the cluster `context`. */
export function renamedContext(yaml: string, context: string): string {
  const kc = new KubeConfig();
  kc.loadFromString(yaml);
  const cluster = kc.getCurrentCluster();
  const user = kc.getCurrentUser();
  if (cluster === null || user === null) throw new Error('kubeconfig without a current cluster and user');
  const out = new KubeConfig();
  out.loadFromOptions({ clusters: [cluster], users: [user], contexts: [{ name: context, cluster: cluster.name, user: user.name }], currentContext: context });
  return out.exportConfig();
}
