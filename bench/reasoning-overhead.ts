// What the reasoning parser costs a stream (bench/support/parser-overhead.ts): a long reasoning span
// closed by `</think>`, then the answer, with `--dyn-reasoning-parser qwen3` vs none. The parser
// splits the text into reasoning_content and content; without it every step is content. A step
// counts as a token whichever field it carries.
// Usage: node dist/bench/reasoning-overhead.js [--rounds N] [--tokens N]
import { parseArgs } from 'node:util';
import { MODEL, measureParserOverhead } from './support/parser-overhead.js';
import { streamingChatBody } from './support/sse-client.js';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '6' }, tokens: { type: 'string', default: '4000' } } });
const rounds = Number(values.rounds);
const maxTokens = Number(values.tokens);

console.log(`one streaming chat request, ${maxTokens} tokens, ${rounds} interleaved rounds, mocker speedup 1e6`);
measureParserOverhead({
  output: `${'Let me weigh each option carefully before answering. '.repeat(150)}</think>${'The answer follows from the steps above. '.repeat(100)}`,
  payload: streamingChatBody(MODEL, maxTokens),
  parserArgs: ['--dyn-reasoning-parser', 'qwen3'],
  parserLabel: 'qwen3 reasoning',
  rounds,
  tokensOf: (timing) => timing.tokens,
  carriesToken: (event) => event.includes('"content"') || event.includes('"reasoning_content"'),
}).catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
