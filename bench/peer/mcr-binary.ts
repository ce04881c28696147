// The multicluster-runtime controller's binary: built once from bench/peer/mcr with the Go module
// proxy and cached under ~/.cache/rxfleet/bin (as hack/ensure-binaries.sh caches kcp), keyed by a
// hash of its sources so an edit rebuilds it. RXFLEET_MCR_PEER_BIN overrides.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SOURCE_DIR = join(dirname(fileURLToPath(import.meta.url)), 'mcr');
const SOURCES = ['go.mod', 'go.sum', 'main.go'];
/** The one module the checksum database lacks (see issue 14); every other module is verified. */
const NOSUMDB = 'sigs.k8s.io/multicluster-runtime/providers/file';
const BUILD_TIMEOUT_MS = 30 * 60_000;

/**
 * The path of the built controller, building it first when missing (minutes on 2 cores).
 *
 * @example
 * const bin = await ensureMcrBinary();
 */
export async function ensureMcrBinary(): Promise<string> {
  const override = process.env.RXFLEET_MCR_PEER_BIN;
  if (override !== undefined && override !== '') {
    if (!existsSync(override)) throw new Error(`RXFLEET_MCR_PEER_BIN=${override} does not exist`);
    return override;
  }
  const hash = createHash('sha256');
  for (const f of SOURCES) hash.update(readFileSync(join(SOURCE_DIR, f)));
  const binDir = join(process.env.RXFLEET_CACHE_DIR ?? join(homedir(), '.cache', 'rxfleet'), 'bin');
  const out = join(binDir, `mcr-peer-${hash.digest('hex').slice(0, 12)}`);
  if (existsSync(out)) return out;
  mkdirSync(binDir, { recursive: true });
  const tmp = `${out}.tmp.${process.pid}`;
  process.stderr.write(`bench:peer: building the multicluster-runtime controller into ${out} (one-time, minutes on 2 cores)...\n`);
  try {
    await goBuild(tmp);
    chmodSync(tmp, 0o755);
    renameSync(tmp, out);
  } finally {
    rmSync(tmp, { force: true });
  }
  return out;
}

function goBuild(out: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('go', ['build', '-trimpath', '-ldflags', '-s -w', '-o', out, '.'], {
      cwd: SOURCE_DIR,
      env: { ...process.env, CGO_ENABLED: '0', GOFLAGS: '-mod=readonly -buildvcs=false', GONOSUMDB: NOSUMDB },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    const timer = setTimeout(() => child.kill('SIGTERM'), BUILD_TIMEOUT_MS);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(new Error(`go build in ${SOURCE_DIR}: ${err.message} (Go ≥ 1.26 must be on PATH)`));
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`go build in ${SOURCE_DIR} failed: ${signal ?? `exit ${code ?? '?'}`}`));
    });
  });
}
