// What the reasoning parser costs a stream: two `serve` child processes with the same chosen output
// (a long reasoning span closed by `</think>`, then the answer; with ignore_eos the mocker carries
// on with its random text), one with `--dyn-reasoning-parser qwen3`, one without, measured
// interleaved A B A B. The parser splits the text into reasoning_content and content; without it
// every step is content. A step counts as a token whichever field it carries.
// Usage: node dist/bench/reasoning-overhead.js [--rounds N] [--tokens N]
import http from 'node:http';
import { parseArgs } from 'node:util';
import { freePort, startProcess, waitForModel } from '../test/support/processes.js';
import { streamChat, streamingChatBody } from './support/sse-client.js';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '6' }, tokens: { type: 'string', default: '4000' } } });
const rounds = Number(values.rounds);
const maxTokens = Number(values.tokens);
const MODEL = 'Qwen/Qwen3-0.6B';
const OUTPUT = `${'Let me weigh each option carefully before answering. '.repeat(150)}</think>${'The answer follows from the steps above. '.repeat(100)}`;
const carriesToken = (event: string): boolean => event.includes('"content"') || event.includes('"reasoning_content"');

async function startServer(extra: string[]): Promise<{ port: number; stop(): Promise<unknown> }> {
  const port = await freePort();
  const args = ['serve', '--http-host', '127.0.0.1', '--http-port', String(port), '--speedup-ratio', '1000000', '--mocker-output-text', OUTPUT, ...extra];
  const server = startProcess(args);
  await waitForModel(`http://127.0.0.1:${port}`, MODEL, server);
  return { port, stop: () => server.stop() };
}

async function main(): Promise<void> {
  const plain = await startServer([]);
  const parsed = await startServer(['--dyn-reasoning-parser', 'qwen3']);
  const agent = new http.Agent({ keepAlive: true });
  const payload = streamingChatBody(MODEL, maxTokens);
  const rate = async (port: number): Promise<number> => {
    const t = await streamChat(port, payload, agent, carriesToken);
    return (t.tokens / t.ms) * 1000;
  };
  // The first streams of a process run before the JIT has settled: three each, unrecorded.
  for (let i = 0; i < 3; i++) {
    await rate(plain.port);
    await rate(parsed.port);
  }
  const off: number[] = [];
  const on: number[] = [];
  for (let i = 0; i < rounds; i++) {
    off.push(await rate(plain.port));
    on.push(await rate(parsed.port));
  }
  await plain.stop();
  await parsed.stop();
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(`one streaming chat request, ${maxTokens} tokens, ${rounds} interleaved rounds, mocker speedup 1e6`);
  console.log(`no parser       tokens_per_s=${off.map((x) => x.toFixed(0)).join(',')} p50=${median(off).toFixed(0)}`);
  console.log(`qwen3 reasoning tokens_per_s=${on.map((x) => x.toFixed(0)).join(',')} p50=${median(on).toFixed(0)}`);
  console.log(`tokens_per_s_ratio_reasoning_over_none=${(median(on) / median(off)).toFixed(3)}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
