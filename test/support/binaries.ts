// Where the control-plane binaries live: the rule of hack/ensure-binaries.sh, implemented once in
// src/envtest/binaries.ts (what users get as rxfleet/envtest); the harness uses the same code.
export type { Binary, BinaryName } from '../../src/envtest/binaries.js';
export { cacheDir, ensureBinaries, readVersions, repoRoot, resolveBinary } from '../../src/envtest/binaries.js';
