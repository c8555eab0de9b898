// The parsers' own CPU cost per streamed token, in process, where the shared machine's load cannot
// drown it: the same decoded steps (bench/tool-parser-overhead.ts's output, cut at the Qwen3
// tokenizer's token boundaries, then plain text up to the token count) go through the chat path's
// per-token work, ResponseFold.step() and the chunk serializer, with the hermes tool-call parser
// and the qwen3 reasoning parser vs none, interleaved, timed by this process's CPU time.
// Usage: node dist/bench/tool-parser-fold.js [--rounds N] [--tokens N]
import { parseArgs } from 'node:util';
import { Tokenizer } from 'tokenizers';
import { ChunkSerializer } from '../src/frontends/http/openai/openai-chunks.js';
import { loadDefaultModelCard } from '../src/models/index.js';
import { ResponseFold, reasoningFor, toolCallsFor, type DecodedStep } from '../src/pipeline/index.js';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '30' }, tokens: { type: 'string', default: '8000' } } });
const rounds = Number(values.rounds);
const tokenCount = Number(values.tokens);

const call = (i: number): string =>
  `<tool_call>\n{"name": "search_docs", "arguments": {"query": "streaming tool call number ${i} with a longer query text", "limit": ${i}, "filters": {"lang": "en", "tags": ["a", "b"]}}}\n</tool_call>\n`;
const OUTPUT = `${'Let me weigh which searches to run first. '.repeat(80)}</think>I will search the docs. ${Array.from({ length: 20 }, (_, i) => call(i)).join('')}`;
const FILLER = 'The harbour was quiet when the boats came back in the evening light. ';
const request = {
  tools: [{ type: 'function' as const, function: { name: 'search_docs', parameters: { type: 'object' } } }],
  chat_template_args: null,
};

async function steps(): Promise<DecodedStep[]> {
  const tokenizer = Tokenizer.fromFile(loadDefaultModelCard().tokenizerJsonPath);
  let text = OUTPUT;
  while ((await tokenizer.encode(text, null, { addSpecialTokens: false })).getIds().length < tokenCount) text += FILLER;
  const ids = (await tokenizer.encode(text, null, { addSpecialTokens: false })).getIds().slice(0, tokenCount);
  const out: DecodedStep[] = [];
  for (const [i, id] of ids.entries()) {
    const last = i === ids.length - 1;
    out.push({
      index: 0,
      text: await tokenizer.decode([id], false),
      token_ids: [id],
      tokens: [],
      log_probs: null,
      finish_reason: last ? 'length' : null,
      engine_finish_reason: last ? 'length' : null,
      stop_reason: null,
    });
  }
  return out;
}

/** CPU microseconds to fold and serialize every step once. */
function runOnce(all: DecodedStep[], parsers: boolean): number {
  const fold = new ResponseFold({
    promptTokens: 1,
    collectText: false,
    reasoning: parsers ? reasoningFor('qwen3', request) : undefined,
    toolCalls: parsers ? toolCallsFor('hermes', request) : undefined,
  });
  const serializer = new ChunkSerializer('chat', 'chatcmpl-1', 0, 'Qwen/Qwen3-0.6B');
  let bytes = 0;
  const start = process.cpuUsage();
  for (const step of all) {
    const delta = fold.step(step);
    if (delta) bytes += serializer.choice(delta).length;
  }
  const used = process.cpuUsage(start);
  if (bytes === 0) throw new Error('nothing serialized');
  return used.user + used.system;
}

async function main(): Promise<void> {
  const all = await steps();
  for (let i = 0; i < 20; i++) {
    runOnce(all, false);
    runOnce(all, true);
  }
  const off: number[] = [];
  const on: number[] = [];
  for (let i = 0; i < rounds; i++) {
    off.push(runOnce(all, false));
    on.push(runOnce(all, true));
  }
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const perToken = (us: number): string => ((us * 1000) / all.length).toFixed(0);
  console.log(`fold + chat chunk per token, ${all.length} tokens, ${rounds} interleaved rounds, CPU time`);
  console.log(`no parser        ns_per_token p50=${perToken(median(off))}`);
  console.log(`hermes + qwen3   ns_per_token p50=${perToken(median(on))}`);
  console.log(`added_ns_per_token=${perToken(median(on) - median(off))}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
