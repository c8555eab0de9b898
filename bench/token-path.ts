// The token path without HTTP: `serve`'s in-process mocker → the router's layers → detokenize and
// stop handling (generateChoices), 256 concurrent streams of 1000 tokens, CPU µs per token of the
// process. With --baseline DIR (another checkout, built) that build runs the same way; each round
// runs every build once in a fresh child process (A B, A B, ...), medians over rounds. What HTTP,
// JSON framing and SSE writes add is bench:compare's part.
// Usage: node dist/bench/token-path.js [--rounds N] [--streams N] [--seconds N] [--baseline DIR]
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { median } from './support/cpu-time.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '4' },
    streams: { type: 'string', default: '256' },
    tokens: { type: 'string', default: '1000' },
    seconds: { type: 'string', default: '5' },
    baseline: { type: 'string' },
    child: { type: 'string' },
  },
});
const STREAMS = Number(values.streams);
const TOKENS = Number(values.tokens);
const SECONDS = Number(values.seconds);
const THIS_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

interface Sample {
  tokensPerSec: number;
  cpuMicrosPerToken: number;
}

/** One measurement inside this process, on the build at `root`. */
async function measure(root: string): Promise<Sample> {
  const { serveInProcess } = (await import(path.join(root, 'dist/test/support/in-process.js'))) as typeof import('../test/support/in-process.js');
  const { generateChoices } = (await import(path.join(root, 'dist/src/pipeline/index.js'))) as typeof import('../src/pipeline/index.js');
  // A build whose streams push is consumed pushed, as its frontends do; an older one is pulled.
  const { drainStream } = (await import(path.join(root, 'dist/src/protocols/index.js'))) as Partial<typeof import('../src/protocols/index.js')>;
  const { service } = await serveInProcess(['--speedup-ratio', '1000000000']);
  const served = service.models.get('Qwen/Qwen3-0.6B');
  const target = { engine: served.router, tokenTable: served.tokenTable };
  let tokens = 0;
  let counting = false;
  let stopping = false;
  let n = 0;
  const stream = async (): Promise<void> => {
    while (!stopping) {
      const request = {
        model: served.name,
        token_ids: [1000, 1001, 1002, 1003, 1004, 1005, 1006, 1007, n++ % 50_000],
        stop_conditions: { max_tokens: TOKENS, ignore_eos: true },
        sampling_options: {},
        output_options: {},
        eos_token_ids: [],
        routing: null,
      };
      const steps = generateChoices({
        target,
        prompts: [{ request, promptTokens: request.token_ids.length }],
        n: 1,
        requestId: `r${n}`,
        signal: new AbortController().signal,
      });
      const onStep = (step: { token_ids: number[] }): void => {
        if (counting) tokens += step.token_ids.length;
      };
      if (drainStream) await drainStream(steps, onStep);
      else for await (const step of steps) onStep(step);
    }
  };
  const streams = Array.from({ length: STREAMS }, stream);
  await new Promise((r) => setTimeout(r, 1500));
  counting = true;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, SECONDS * 1000));
  const cpu = process.cpuUsage(cpu0);
  const secs = (performance.now() - t0) / 1000;
  counting = false;
  stopping = true;
  await Promise.all(streams);
  await service.stop();
  return { tokensPerSec: tokens / secs, cpuMicrosPerToken: (cpu.user + cpu.system) / tokens };
}

function runChild(root: string): Sample {
  const out = execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--child', root, '--streams', String(STREAMS), '--tokens', String(TOKENS), '--seconds', String(SECONDS)], {
    env: { ...process.env, DYN_LOG: 'error' },
    encoding: 'utf8',
  });
  return JSON.parse(out.trim().split('\n').at(-1)!) as Sample;
}

async function main(): Promise<void> {
  if (values.child) {
    console.log(JSON.stringify(await measure(values.child)));
    process.exit(0);
  }
  const builds: [string, string][] = [['this build', THIS_ROOT]];
  if (values.baseline) builds.push(['baseline', path.resolve(values.baseline)]);
  const samples = new Map<string, Sample[]>(builds.map(([name]) => [name, []]));
  for (let round = 0; round < Number(values.rounds); round++) {
    const order = round % 2 === 0 ? builds : [...builds].reverse();
    for (const [name, root] of order) {
      const s = runChild(root);
      samples.get(name)!.push(s);
      console.log(`round ${round + 1} ${name}: ${s.tokensPerSec.toFixed(0)} tokens/s, ${s.cpuMicrosPerToken.toFixed(2)} CPU µs/token`);
    }
  }
  console.log(`| build | tokens/s | CPU µs per token |\n|---|---|---|`);
  for (const [name] of builds) {
    const xs = samples.get(name)!;
    console.log(`| ${name} | ${median(xs.map((s) => s.tokensPerSec)).toFixed(0)} | ${median(xs.map((s) => s.cpuMicrosPerToken)).toFixed(2)} |`);
  }
}

await main();
