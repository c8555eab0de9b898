// What the hermes tool-call parser with the qwen3 reasoning parser costs a chat stream
// (bench/support/parser-overhead.ts): a reasoning span, text, twenty hermes calls with arguments of
// some length, then (ignore_eos) the mocker's random text as content, requested with tools, with
// `--dyn-tool-call-parser hermes --dyn-reasoning-parser qwen3` vs no parser. Steps that only hold a
// call's opening markup send no event, so the rate is the engine's tokens (max_tokens, all of them
// generated) over the stream's wall time on both sides.
// Usage: node dist/bench/tool-parser-overhead.js [--rounds N] [--tokens N]
import { parseArgs } from 'node:util';
import { MODEL, measureParserOverhead } from './support/parser-overhead.js';
import { streamingChatBody } from './support/sse-client.js';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '6' }, tokens: { type: 'string', default: '4000' } } });
const rounds = Number(values.rounds);
const maxTokens = Number(values.tokens);

const call = (i: number): string =>
  `<tool_call>\n{"name": "search_docs", "arguments": {"query": "streaming tool call number ${i} with a longer query text", "limit": ${i}, "filters": {"lang": "en", "tags": ["a", "b"]}}}\n</tool_call>\n`;
const tools = [
  {
    type: 'function',
    function: {
      name: 'search_docs',
      parameters: { type: 'object', properties: { query: { type: 'string' }, limit: { type: 'integer' }, filters: { type: 'object' } } },
    },
  },
];

console.log(`one streaming chat request with tools, ${maxTokens} tokens, ${rounds} interleaved rounds, mocker speedup 1e6`);
measureParserOverhead({
  output: `${'Let me weigh which searches to run first. '.repeat(80)}</think>I will search the docs. ${Array.from({ length: 20 }, (_, i) => call(i)).join('')}`,
  payload: streamingChatBody(MODEL, maxTokens, { tools }),
  parserArgs: ['--dyn-tool-call-parser', 'hermes', '--dyn-reasoning-parser', 'qwen3'],
  parserLabel: 'hermes + qwen3',
  rounds,
  tokensOf: () => maxTokens,
  carriesToken: () => true,
}).catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
