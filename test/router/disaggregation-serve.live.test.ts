// Disaggregated serving through a whole frontend in one process: prefill mockers, decode mockers,
// the frontend's prefill and decode routers, and the official OpenAI client.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import OpenAI from 'openai';
import { KvRouterPolicy, PushRouter } from '../../src/router/index.js';
import { MODEL, startDisaggregated, type DisaggregatedCluster } from '../support/disaggregated.js';

const FAST = ['--router-mode', 'kv', '--block-size', '16', '--speedup-ratio', '100'];

function client(cluster: DisaggregatedCluster, headers: Record<string, string> = {}): OpenAI {
  return new OpenAI({ baseURL: `${cluster.baseUrl}/v1`, apiKey: 'unused', maxRetries: 0, defaultHeaders: headers });
}

function prefillRouter(cluster: DisaggregatedCluster): PushRouter {
  const pool = cluster.frontend.models.get(MODEL).router.disaggregation.prefillPool;
  assert.ok(pool instanceof PushRouter, 'the frontend made a prefill router');
  return pool;
}

const sum = (values: number[]): number => values.reduce((a, b) => a + b, 0);

test('disaggregated: a chat goes prefill then decode; streaming and unary answers with the right usage', async () => {
  const cluster = await startDisaggregated({ prefillWorkers: 2, decodeWorkers: 2, args: FAST });
  try {
    const openai = client(cluster);
    const messages = [{ role: 'user' as const, content: 'Tell me about the tides of the northern sea and why they are high.' }];
    const unary = await openai.chat.completions.create({ model: MODEL, messages, max_tokens: 12, ignore_eos: true } as OpenAI.ChatCompletionCreateParamsNonStreaming);
    assert.equal(unary.choices[0]!.finish_reason, 'length');
    assert.equal(unary.usage!.completion_tokens, 12);
    assert.ok(unary.usage!.prompt_tokens > 10);
    assert.equal(unary.usage!.total_tokens, unary.usage!.prompt_tokens + 12);

    const stream = await openai.chat.completions.create({
      model: MODEL, messages, max_tokens: 9, ignore_eos: true, stream: true, stream_options: { include_usage: true },
    } as OpenAI.ChatCompletionCreateParamsStreaming);
    let text = '';
    let usage: OpenAI.CompletionUsage | undefined;
    let finish: string | null = null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      usage = chunk.usage ?? usage;
    }
    assert.ok(text.length > 0);
    assert.equal(finish, 'length');
    assert.equal(usage!.completion_tokens, 9);
    assert.equal(usage!.prompt_tokens, unary.usage!.prompt_tokens);

    const prefillStats = cluster.prefill!.engines.map((e) => e.stats());
    const decodeStats = cluster.decode.engines.map((e) => e.stats());
    assert.equal(sum(prefillStats.map((s) => s.numFinishedRequests)), 2, 'each request was prefilled once');
    assert.equal(sum(decodeStats.map((s) => s.numFinishedRequests)), 2, 'and decoded once');
    assert.equal(sum(decodeStats.map((s) => s.numHandedOverPrompts)), 2, 'decode took the prompts over without prefilling them');

    // /metrics names each worker's role.
    const metrics = await (await fetch(`${cluster.baseUrl}/metrics`)).text();
    for (const [role, running] of [['prefill', cluster.prefill!], ['decode', cluster.decode]] as const) {
      for (const rt of running.runtimes) {
        assert.match(metrics, new RegExp(`worker_active_prefill_tokens\\{worker_id="${rt.instanceId}",dp_rank="0",worker_type="${role}"\\}`));
      }
    }
  } finally {
    await cluster.stop();
  }
});

test('disaggregated: the prefill pool KV events reach the prefill router, which keeps a shared prefix on one prefill worker', async () => {
  const cluster = await startDisaggregated({ prefillWorkers: 2, decodeWorkers: 1, args: FAST });
  try {
    const policy = prefillRouter(cluster).policy;
    assert.ok(policy instanceof KvRouterPolicy);
    const openai = client(cluster);
    const system = 'You are a meticulous assistant who answers questions about the sea, ships and weather. '.repeat(20);
    const chosen: bigint[] = [];
    const overlaps: number[] = [];
    for (let i = 0; i < 4; i++) {
      await openai.completions.create({ model: MODEL, prompt: `${system}Question ${i}: why?`, max_tokens: 3 });
      chosen.push(policy.lastDecision!.workerId);
      overlaps.push(policy.lastDecision!.overlapBlocks);
    }
    assert.equal(new Set(chosen).size, 1, `one prefill worker: ${chosen.join(', ')}`);
    assert.equal(overlaps[0], 0);
    assert.ok(overlaps.slice(1).every((o) => o >= 20), `the prefill router saw the cached prefix: ${overlaps.join(', ')}`);
    assert.ok(policy.indexer.treeSize(chosen[0]!) > 0, 'KV events of the prefill worker are in the prefill router');
  } finally {
    await cluster.stop();
  }
});

test('disaggregated: pinning the prefill and decode workers by header', async () => {
  const cluster = await startDisaggregated({ prefillWorkers: 2, decodeWorkers: 2, args: FAST });
  try {
    const prefillId = cluster.prefill!.runtimes[1]!.instanceId;
    const decodeId = cluster.decode.runtimes[0]!.instanceId;
    const openai = client(cluster, {
      'x-dynamo-prefill-instance-id': prefillId.toString(),
      'x-dynamo-worker-instance-id': decodeId.toString(),
    });
    for (let i = 0; i < 3; i++) {
      const res = await openai.completions.create({ model: MODEL, prompt: `pinned request ${i}`, max_tokens: 4 });
      assert.equal(res.choices.length, 1);
    }
    assert.deepEqual(cluster.prefill!.engines.map((e) => e.stats().numFinishedRequests), [0, 3]);
    assert.deepEqual(cluster.decode.engines.map((e) => e.stats().numFinishedRequests), [3, 0]);

    // Only the worker header pins prefill to that (decode) id too, as upstream: no prefill worker has it.
    const decodeOnly = client(cluster, { 'x-dynamo-worker-instance-id': decodeId.toString() });
    await assert.rejects(decodeOnly.completions.create({ model: MODEL, prompt: 'x', max_tokens: 2 }), (err: InstanceType<typeof OpenAI.APIError>) => {
      assert.equal(err.status, 404);
      return true;
    });
    // nvext names them as well.
    const body = { model: MODEL, prompt: 'by nvext', max_tokens: 2, nvext: { prefill_worker_id: prefillId.toString(), decode_worker_id: cluster.decode.runtimes[1]!.instanceId.toString() } };
    const res = await fetch(`${cluster.baseUrl}/v1/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    assert.equal(res.status, 200, await res.clone().text());
    await res.json();
    assert.deepEqual(cluster.decode.engines.map((e) => e.stats().numFinishedRequests), [3, 1]);
    assert.deepEqual(cluster.prefill!.engines.map((e) => e.stats().numFinishedRequests), [0, 4]);
  } finally {
    await cluster.stop();
  }
});

test('disaggregated: decode workers without a prefill worker answer 503 saying so', async () => {
  const cluster = await startDisaggregated({ prefillWorkers: 0, decodeWorkers: 1, args: FAST });
  try {
    await assert.rejects(
      client(cluster).chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }], max_tokens: 3 }),
      (err: InstanceType<typeof OpenAI.APIError>) => {
        assert.equal(err.status, 503);
        assert.match(err.message, /decode workers but no prefill worker/);
        assert.match(err.message, /--decode-fallback/);
        return true;
      },
    );
    await assert.rejects(
      client(cluster).chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }], max_tokens: 3, stream: true }),
      (err: InstanceType<typeof OpenAI.APIError>) => err.status === 503,
    );
  } finally {
    await cluster.stop();
  }
});

test('disaggregated: --decode-fallback serves aggregated on the decode workers', async () => {
  const cluster = await startDisaggregated({ prefillWorkers: 0, decodeWorkers: 1, args: [...FAST, '--decode-fallback'] });
  try {
    const res = await client(cluster).chat.completions.create({
      model: MODEL, messages: [{ role: 'user', content: 'hi there' }], max_tokens: 5, ignore_eos: true,
    } as OpenAI.ChatCompletionCreateParamsNonStreaming);
    assert.equal(res.usage!.completion_tokens, 5);
    const stats = cluster.decode.engines[0]!.stats();
    assert.equal(stats.numFinishedRequests, 1);
    assert.equal(stats.numHandedOverPrompts, 0, 'the decode worker prefilled the prompt itself');
  } finally {
    await cluster.stop();
  }
});
