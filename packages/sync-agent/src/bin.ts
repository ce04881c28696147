#!/usr/bin/env node
// The `rxfleet-sync-agent` executable. It checks the Node version before loading anything else
// (this file has no static import), so an old Node gets one line saying what to install, not a
// stack trace from deep inside undici; then it runs the agent.
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 19)) {
  process.stderr.write(`rxfleet-sync-agent needs Node ≥ 22.19; this is v${process.versions.node}\n`);
  process.exit(1);
}
const { runSyncAgent } = await import('./main.js');
await runSyncAgent(process.argv.slice(2));
export {};
