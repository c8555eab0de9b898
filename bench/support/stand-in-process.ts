// A vLLM-like stand-in upstream in a process of its own (test/support/openai-upstream.ts): prints
// its URL on stdout, answers `--tokens` token ids per request.
import { parseArgs } from 'node:util';
import { startStandIn } from '../../test/support/openai-upstream.js';

const { values } = parseArgs({ options: { tokens: { type: 'string', default: '2000' } } });
const ids = [9707, 1879, 11, 419, 374, 264, 1273, 13];
const answer = Array.from({ length: Number(values.tokens) }, (_, i) => ids[i % ids.length]!);
const server = await startStandIn({ kind: 'vllm', answer });
process.stdout.write(`${server.url}\n`);
