// The summary printed after each run: one block of lines a person reads.
import type { Distribution, RunSummary } from './stats.js';

export function loadLabel(load: RunSummary['load']): string {
  if (load.requestRate !== undefined) return `request rate ${load.requestRate}/s`;
  if (load.concurrency !== undefined) return `concurrency ${load.concurrency}`;
  return 'trace replay';
}

export function renderRun(run: RunSummary): string {
  const row = (name: string, d: Distribution | undefined) =>
    d === undefined ? [] : [`  ${name.padEnd(22)} mean ${f(d.mean)}  p50 ${f(d.p50)}  p90 ${f(d.p90)}  p99 ${f(d.p99)}  max ${f(d.max)}`];
  const errors = Object.entries(run.errors).map(([message, count]) => `  error x${count}: ${message}`);
  return [
    `${loadLabel(run.load)}: ${run.requests.completed} ok, ${run.requests.failed} failed in ${run.durationS.toFixed(2)} s`,
    `  requests/s ${run.requestsPerS.toFixed(2)}  output tokens/s ${run.outputTokensPerS.toFixed(1)}  ` +
      `tokens in ${run.tokens.input} (cached ${run.tokens.cachedInput}) out ${run.tokens.output}`,
    ...row('TTFT ms', run.ttftMs),
    ...row('inter-token ms', run.interTokenMs),
    ...row('end-to-end ms', run.e2eMs),
    ...errors,
    '',
  ].join('\n');
}

function f(x: number): string {
  return x.toFixed(2);
}
