// Server child processes for tests: implemented once in src/envtest (what users get as
// rxfleet/envtest); the harness uses the same code.
export type { ExitInfo, ServerProcessOptions } from '../../src/envtest/process.js';
export { ServerProcess, ServerStartError } from '../../src/envtest/process.js';
export type { ProcessControls, WaitOptions } from '../../src/envtest/wait.js';
export { processControls, waitUntil } from '../../src/envtest/wait.js';
