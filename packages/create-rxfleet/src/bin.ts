#!/usr/bin/env node
// `npm create rxfleet@latest <dir>` runs this bin (npm's convention: `npm create <x>` runs the bin
// of the package `create-<x>`). It runs `rxfleet init <dir> [options]`, the bin of @rxfleet/cli, in
// a child process on this Node: what is written, the options, the messages and the Node version
// check are the CLI's own, and the new project's package.json names rxfleet (dependencies) and
// @rxfleet/cli (devDependencies) at this release.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const usage = `usage: npm create rxfleet@latest <dir> [-- --name <name> --force]
Writes a controller project into <dir> (rxfleet init of @rxfleet/cli: npx @rxfleet/cli init --help).
`;

const args = process.argv.slice(2);
if (args.length === 0) {
  process.stderr.write(usage);
  process.exitCode = 2;
} else {
  const require = createRequire(import.meta.url);
  const manifest = require.resolve('@rxfleet/cli/package.json');
  const { bin } = require(manifest) as { bin: { rxfleet: string } };
  const run = spawnSync(process.execPath, [join(dirname(manifest), bin.rxfleet), 'init', ...args], { stdio: 'inherit' });
  if (run.error !== undefined) process.stderr.write(`create-rxfleet: cannot run rxfleet init: ${run.error.message}\n`);
  process.exitCode = run.status ?? 1;
}
