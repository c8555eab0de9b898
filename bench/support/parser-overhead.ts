// What an output parser costs a stream, measured the same way for every parser: two `serve` child
// processes with the same chosen output (`--mocker-output-text`; with ignore_eos the mocker carries
// on with its random text), one with the parser flags and one without, streamed one request at a
// time, interleaved A B A B after three unrecorded warm-ups each (the JIT settles meanwhile).
import http from 'node:http';
import { freePort, startProcess, waitForModel } from '../../test/support/processes.js';
import { streamChat, type StreamTiming } from './sse-client.js';

export const MODEL = 'Qwen/Qwen3-0.6B';

export interface OverheadRun {
  /** What the engine answers. */
  output: string;
  /** The streaming chat request body. */
  payload: string;
  /** The `serve` flags of the parsed side, and its label. */
  parserArgs: string[];
  parserLabel: string;
  rounds: number;
  /** The stream's tokens out of its timing (the SSE events that count, or the engine's tokens). */
  tokensOf(timing: StreamTiming): number;
  /** Which SSE data events count in `timing.tokens`. */
  carriesToken(event: string): boolean;
}

async function startServer(output: string, extra: string[]): Promise<{ port: number; stop(): Promise<unknown> }> {
  const port = await freePort();
  const args = ['serve', '--http-host', '127.0.0.1', '--http-port', String(port), '--speedup-ratio', '1000000', '--mocker-output-text', output, ...extra];
  const server = startProcess(args);
  await waitForModel(`http://127.0.0.1:${port}`, MODEL, server);
  return { port, stop: () => server.stop() };
}

/** Runs both sides and prints each round's tokens/s, the medians and their ratio. */
export async function measureParserOverhead(run: OverheadRun): Promise<void> {
  const plain = await startServer(run.output, []);
  const parsed = await startServer(run.output, run.parserArgs);
  const agent = new http.Agent({ keepAlive: true });
  const rate = async (port: number): Promise<number> => {
    const timing = await streamChat(port, run.payload, agent, run.carriesToken);
    return (run.tokensOf(timing) / timing.ms) * 1000;
  };
  for (let i = 0; i < 3; i++) {
    await rate(plain.port);
    await rate(parsed.port);
  }
  const off: number[] = [];
  const on: number[] = [];
  for (let i = 0; i < run.rounds; i++) {
    off.push(await rate(plain.port));
    on.push(await rate(parsed.port));
  }
  await plain.stop();
  await parsed.stop();
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const label = run.parserLabel.padEnd(24);
  console.log(`${'no parser'.padEnd(24)} tokens_per_s=${off.map((x) => x.toFixed(0)).join(',')} p50=${median(off).toFixed(0)}`);
  console.log(`${label} tokens_per_s=${on.map((x) => x.toFixed(0)).join(',')} p50=${median(on).toFixed(0)}`);
  console.log(`tokens_per_s_ratio_parsed_over_none=${(median(on) / median(off)).toFixed(3)}`);
}
