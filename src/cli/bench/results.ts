import type { RunSummary } from './stats.js';

/** The JSON document of `--output`, also embedded in the HTML report. */
export interface BenchResults {
  readonly tool: 'dynamo-ts bench';
  readonly version: string;
  readonly startedAt: string;
  readonly target: { readonly url: string; readonly api: string; readonly model: string; readonly stream: boolean };
  readonly workload: {
    readonly kind: 'synthetic' | 'trace';
    readonly inputTokens?: string;
    readonly outputTokens?: string;
    readonly sharedPrefixRatio?: number;
    readonly sessionTurns?: number;
    readonly trace?: string;
    readonly traceBlockSize?: number;
    readonly seed: number;
  };
  readonly runs: readonly RunSummary[];
}
