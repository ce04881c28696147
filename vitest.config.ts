// Test layout: fast unit and marble tests need no server; integration tests share one real kcp and
// one real kube-apiserver per run (started by test/support/global-setup.ts).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The examples import the package by name (`rxfleet`, `rxfleet/sinks`...), as a user's project
// does. In tests that name means the sources, as tsconfig.json's `paths` says for the type checker:
// one copy of every module, whether a test reaches it through an example or directly.
const src = fileURLToPath(new URL('./src/', import.meta.url));
const resolve = {
  alias: [
    { find: /^rxfleet$/, replacement: `${src}index.ts` },
    { find: /^rxfleet\/(.+)$/, replacement: `${src}$1/index.ts` },
    { find: /^@rxfleet\/sync-agent$/, replacement: fileURLToPath(new URL('./packages/sync-agent/src/index.ts', import.meta.url)) },
  ],
};

export default defineConfig({
  test: {
    reporters: ['default', './test/support/strict-reporter.ts'],
    allowOnly: false,
    projects: [
      {
        resolve,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts', 'test/marbles/**/*.test.ts'],
        },
      },
      {
        resolve,
        test: {
          name: 'integration',
          // test/faults: the fault suite (npm run test:faults), on the same shared servers.
          include: ['test/integration/**/*.test.ts', 'test/faults/**/*.test.ts'],
          globalSetup: ['./test/support/global-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 300_000,
          pool: 'forks',
          // Two cores: the control planes need one of them.
          maxWorkers: 2,
          // The churn test measures heap growth after a forced GC.
          execArgv: ['--expose-gc'],
        },
      },
    ],
  },
});
