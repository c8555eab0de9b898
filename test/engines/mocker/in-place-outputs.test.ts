// A consumer that reads the mocker's outputs in place (a unary answer's fold) may be handed one
// refilled output per token: it sees the same tokens and finish as a consumer that keeps them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { drainStream, type LLMEngineOutput } from '../../../src/protocols/index.js';
import { collect, fastEngine, ids, prompt, request } from './helpers.js';

test('outputs read in place carry the same tokens, finish and usage as outputs kept', async () => {
  const engine = fastEngine();
  const req = request(prompt(40, 3), { maxTokens: 12, ignoreEos: true, seed: 7 });
  const kept = await collect(engine, req);
  const seen: number[] = [];
  const objects = new Set<LLMEngineOutput>();
  let last: LLMEngineOutput | undefined;
  await drainStream(
    engine.generate(req, { requestId: 'in-place', signal: new AbortController().signal }),
    (out) => {
      seen.push(...out.token_ids);
      objects.add(out);
      last = { ...out };
    },
    true,
  );
  engine.close();
  assert.deepEqual(seen, ids(kept));
  assert.equal(last?.finish_reason, kept.at(-1)!.finish_reason);
  assert.deepEqual(last?.completion_usage, kept.at(-1)!.completion_usage);
  assert.ok(objects.size < kept.length, 'plain token outputs are refilled');
});
