import { type Config } from '../../../src/config/index.js';
import { runBench, type BenchResults } from '../../../src/cli/bench/index.js';
import { runConfig } from '../../support/run-config.js';

const SILENT = { begin() {}, record() {}, end() {} };

/** The config of `dynamo-ts bench ARGS`. */
export function benchConfig(args: string[]): Config {
  return runConfig(['bench', ...args], {});
}

/** Runs `dynamo-ts bench ARGS` in the test process; returns the results and what it printed. */
export async function bench(args: string[]): Promise<{ results: BenchResults; printed: string }> {
  let printed = '';
  const results = await runBench(benchConfig(args), { out: (text) => (printed += text), progress: SILENT, signal: new AbortController().signal });
  return { results, printed };
}
