// `dynamo-ts bench`: runs each load point of the sweep against a server, prints a summary per
// run, and writes the results as JSON and as an HTML report when asked.
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { ConfigError, packageVersion, type Config } from '../../config/index.js';
import { CLIENTS, type BenchClient } from './clients/index.js';
import { planBench } from './plan.js';
import { progressBar, type Progress } from './progress.js';
import { renderHtmlReport } from './report-html.js';
import { loadLabel, renderRun } from './report-text.js';
import type { BenchResults } from './results.js';
import { runLoadPoint } from './schedule.js';
import { summarize, type RunSummary } from './stats.js';
import { syntheticWorkload, traceWorkload, type Workload } from './workload.js';

export type { BenchResults } from './results.js';
export type { RunSummary, Distribution } from './stats.js';

export interface BenchIo {
  readonly out: (text: string) => void;
  readonly progress: Progress;
  /** Aborting it stops the run early; what was measured is still reported. */
  readonly signal: AbortSignal;
}

/** Runs the benchmark `config` describes; resolves to its results (also written where asked). */
export async function runBench(config: Config, io: BenchIo): Promise<BenchResults> {
  const httpApi = config.api !== 'kserve';
  if (httpApi !== /^https?:\/\//.test(config.url)) {
    throw new ConfigError(httpApi ? `--url ${config.url}: --api ${config.api} needs an http:// or https:// URL` : `--url ${config.url}: --api kserve needs grpc://host:port or host:port`);
  }
  const makeWorkload = (): Workload => config.trace !== undefined
    ? traceWorkload(config.trace, config.traceBlockSize, config.traceSpeedup)
    : syntheticWorkload({ inputTokens: config.inputTokens, outputTokens: config.outputTokens, sharedPrefixRatio: config.sharedPrefixRatio, sessionTurns: config.sessionTurns, seed: config.seed });
  const plan = planBench(config, makeWorkload().size);
  const model = config.model ?? (httpApi ? await firstModel(config.url) : undefined);
  if (model === undefined) throw new ConfigError('--model is required with --api kserve');
  const startedAt = new Date().toISOString();
  const client: BenchClient = CLIENTS[config.api](config.url);
  const runs: RunSummary[] = [];
  try {
    for (const point of plan.points) {
      if (io.signal.aborted) break;
      io.progress.begin(loadLabel(point), plan.requests, plan.durationMs / 1000);
      const { startMs, outcomes } = await runLoadPoint(point, makeWorkload(), {
        client,
        model,
        stream: config.stream,
        ignoreEos: config.ignoreEos,
        timeoutMs: config.requestTimeout * 1000,
        requests: plan.requests,
        durationMs: plan.durationMs,
        maxInFlight: plan.maxInFlight,
        seed: config.seed,
        signal: io.signal,
        onOutcome: (outcome) => io.progress.record(outcome),
      });
      io.progress.end();
      const run = summarize(point, startMs, outcomes);
      runs.push(run);
      io.out(renderRun(run));
    }
  } finally {
    client.close();
  }
  const results: BenchResults = {
    tool: 'dynamo-ts bench',
    version: packageVersion(),
    startedAt,
    target: { url: config.url, api: config.api, model, stream: config.stream },
    workload: config.trace !== undefined
      ? { kind: 'trace', trace: config.trace, traceBlockSize: config.traceBlockSize, seed: config.seed }
      : { kind: 'synthetic', inputTokens: config.inputTokens, outputTokens: config.outputTokens, sharedPrefixRatio: config.sharedPrefixRatio, sessionTurns: config.sessionTurns, seed: config.seed },
    runs,
  };
  if (config.output !== undefined) writeFileSync(config.output, `${JSON.stringify(results, null, 2)}\n`);
  if (config.html !== undefined) writeFileSync(config.html, renderHtmlReport(results));
  return results;
}

/** The first model the server lists, so a bench against a one-model server needs no --model. */
async function firstModel(baseUrl: string): Promise<string> {
  const url = new URL('v1/models', baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
  const body = await new Promise<string>((resolve, reject) => {
    const transport = url.protocol === 'https:' ? https : http;
    transport.get(url, { timeout: 10_000 }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => (res.statusCode === 200 ? resolve(text) : reject(new Error(`GET ${url} answered ${res.statusCode}`))));
    }).on('error', reject).on('timeout', function (this: http.ClientRequest) {
      this.destroy(new Error(`GET ${url} timed out`));
    });
  }).catch((err: Error) => {
    throw new ConfigError(`cannot list the models of ${baseUrl} (${err.message}); give --model`);
  });
  const id = (JSON.parse(body) as { data?: { id?: string }[] }).data?.[0]?.id;
  if (id === undefined) throw new ConfigError(`${baseUrl} serves no model yet; give --model or wait for one`);
  return id;
}

export { progressBar } from './progress.js';
