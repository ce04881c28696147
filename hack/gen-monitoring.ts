// Writes deploy/monitoring's generated files and the `rxfleet init` scaffold's copies of them
// (hack/monitoring/files.ts says which, from what). `--check` writes nothing and fails when a file
// differs, naming it; test/integration/monitoring-rules.test.ts runs the same comparison.
//
//   node --import ./bench/register.ts hack/gen-monitoring.ts [--check]
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { monitoringFiles } from './monitoring/files.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const check = process.argv.includes('--check');
const stale: string[] = [];
for (const [path, text] of monitoringFiles(root)) {
  const file = join(root, path);
  const now = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
  if (now === text) continue;
  stale.push(path);
  if (check) continue;
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}
if (check && stale.length > 0) {
  console.error(`gen-monitoring: out of date: ${stale.join(', ')}; run node --import ./bench/register.ts hack/gen-monitoring.ts`);
  process.exit(1);
}
console.error(check ? 'gen-monitoring: up to date' : `gen-monitoring: wrote ${stale.length === 0 ? 'nothing (up to date)' : stale.join(', ')}`);
