// Free TCP ports on 127.0.0.1: implemented once in src/envtest/ports.ts.
export { freePort, freePorts } from '../../src/envtest/ports.js';
