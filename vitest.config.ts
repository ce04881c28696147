// Test layout: fast unit and marble tests need no server; integration tests share one real kcp and
// one real kube-apiserver per run (started by test/support/global-setup.ts).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    reporters: ['default', './test/support/strict-reporter.ts'],
    allowOnly: false,
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts', 'test/marbles/**/*.test.ts'],
        },
      },
      {
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
