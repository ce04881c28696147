// A vitest reporter that turns a skipped or todo test into a failed run, and prints one plain
// closing line ("vitest: N passed, N failed, N skipped") that CI reads whatever the runner.
import type { Reporter, TestModule } from 'vitest/node';

/**
 * Fails the run when any test was skipped: a skipped test against a real server is a gap, not a pass.
 *
 * @example
 * // vitest.config.ts
 * export default defineConfig({ test: { reporters: ['default', './test/support/strict-reporter.ts'] } });
 */
export default class StrictReporter implements Reporter {
  onTestRunEnd(testModules: readonly TestModule[]): void {
    let passed = 0;
    let failed = 0;
    const skipped: string[] = [];
    for (const mod of testModules) {
      for (const test of mod.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else if (state === 'skipped') skipped.push(`${mod.moduleId} > ${test.fullName}`);
      }
    }
    if (skipped.length > 0) {
      process.stderr.write(
        `\nskipped tests are not allowed (fix them or delete them):\n${skipped.map((s) => `  - ${s}`).join('\n')}\n`,
      );
      process.exitCode = 1;
    }
    process.stdout.write(`\nvitest: ${passed} passed, ${failed} failed, ${skipped.length} skipped\n`);
  }
}
