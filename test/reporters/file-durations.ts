// Per-file durations at the end of a run, so the suite's cost stays visible (issue 35): the
// slowest files are printed when the run covers 20 files or more (the suite, a big folder), and
// DRIVERBOX_TEST_DURATIONS=<file> writes every file's figures as tab-separated lines.
//   npx vitest run                                        (the 20 slowest, after the summary)
//   DRIVERBOX_TEST_DURATIONS=/tmp/d.tsv npx vitest run test/faults
import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

const SLOWEST = Number(process.env.DRIVERBOX_TEST_SLOWEST ?? 20);

interface FileCost {
  file: string;
  tests: number;
  /** Tests and hooks, ms. */
  runMs: number;
  /** Importing the file and what it imports, ms. */
  importMs: number;
}

function costOf(module: TestModule, root: string): FileCost {
  const d = module.diagnostic();
  return {
    file: relative(root, module.moduleId),
    tests: [...module.children.allTests()].length,
    runMs: Math.round(d.duration),
    importMs: Math.round(d.collectDuration + d.setupDuration + d.prepareDuration),
  };
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export default class FileDurationsReporter implements Reporter {
  private root = process.cwd();

  onInit(vitest: { config: { root: string } }): void {
    this.root = vitest.config.root;
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const costs = modules.map((m) => costOf(m, this.root)).sort((a, b) => b.runMs + b.importMs - (a.runMs + a.importMs));
    const out = process.env.DRIVERBOX_TEST_DURATIONS;
    if (out) {
      const lines = costs.map((c) => `${c.runMs + c.importMs}\t${c.runMs}\t${c.importMs}\t${c.tests}\t${c.file}`);
      writeFileSync(out, `total_ms\trun_ms\timport_ms\ttests\tfile\n${lines.join('\n')}\n`);
    }
    if (costs.length < 20 || SLOWEST <= 0) return;
    const total = costs.reduce((sum, c) => sum + c.runMs + c.importMs, 0);
    const shown = costs.slice(0, SLOWEST);
    const width = Math.max(...shown.map((c) => c.file.length));
    const lines = shown.map((c) => `  ${seconds(c.runMs + c.importMs).padStart(8)}  ${c.file.padEnd(width)}  ${c.tests} tests, import ${seconds(c.importMs)}`);
    process.stdout.write(`\n The ${shown.length} slowest of ${costs.length} files (${seconds(total)} of file time in all):\n${lines.join('\n')}\n\n`);
  }
}
