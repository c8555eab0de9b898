// Conditional disaggregation through a whole frontend with prefill and decode mockers: a repeated
// prompt, cached on its decode worker, skips the prefill worker; /metrics counts each decision.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import OpenAI from 'openai';
import { KvRouterPolicy } from '../../src/router/index.js';
import { MODEL, startDisaggregated } from '../support/disaggregated.js';

const FAST = ['--router-mode', 'kv', '--block-size', '16', '--speedup-ratio', '100'];
const sum = (values: number[]): number => values.reduce((a, b) => a + b, 0);

test('conditional disaggregation: a prompt cached on its decode worker prefills there; a new one goes to the prefill worker; both counted', async () => {
  const cluster = await startDisaggregated({ prefillWorkers: 1, decodeWorkers: 2, args: [...FAST, '--router-conditional-disagg'] });
  try {
    const openai = new OpenAI({ baseURL: `${cluster.baseUrl}/v1`, apiKey: 'unused', maxRetries: 0 });
    const prompt = 'The harbour master keeps a log of every ship that comes in with the tide, and of the weather. '.repeat(8);
    const first = await openai.completions.create({ model: MODEL, prompt, max_tokens: 6, ignore_eos: true } as OpenAI.CompletionCreateParamsNonStreaming);
    assert.equal(first.usage!.completion_tokens, 6);
    const prefillAfterFirst = sum(cluster.prefill!.engines.map((e) => e.stats().numFinishedRequests));
    assert.equal(prefillAfterFirst, 1, 'a prompt cached nowhere is prefilled remotely');

    // The decode router predicted the prompt's blocks on the worker that decoded it: the repeat prefills there.
    assert.ok(cluster.frontend.models.get(MODEL).router.policy instanceof KvRouterPolicy);
    const second = await openai.completions.create({ model: MODEL, prompt, max_tokens: 6, ignore_eos: true } as OpenAI.CompletionCreateParamsNonStreaming);
    assert.equal(second.usage!.completion_tokens, 6);
    assert.equal(second.usage!.prompt_tokens, first.usage!.prompt_tokens);
    assert.equal(sum(cluster.prefill!.engines.map((e) => e.stats().numFinishedRequests)), 1, 'no second remote prefill');
    const decodeStats = cluster.decode.engines.map((e) => e.stats());
    assert.equal(sum(decodeStats.map((s) => s.numFinishedRequests)), 2);
    assert.equal(sum(decodeStats.map((s) => s.numHandedOverPrompts)), 1, 'only the first was handed over; the second was prefilled by its decode worker');
    assert.deepEqual(decodeStats.map((s) => s.numFinishedRequests).sort(), [0, 2], 'the repeat went to the decode worker holding the prompt');

    // A different prompt has nothing cached: remote again.
    await openai.completions.create({ model: MODEL, prompt: 'A short and unrelated question about lighthouses and their keepers?', max_tokens: 3 });
    assert.equal(sum(cluster.prefill!.engines.map((e) => e.stats().numFinishedRequests)), 2);

    const metrics = await (await fetch(`${cluster.baseUrl}/metrics`)).text();
    const series = (decision: string, reason: string) => new RegExp(`dynamo_frontend_prefill_decisions_total\\{model="${MODEL.replace('/', '\\/')}",decision="${decision}",reason="${reason}"\\} (\\d+)`);
    assert.equal(metrics.match(series('local', 'short_or_cached'))?.[1], '1', metrics);
    assert.equal(metrics.match(series('remote', 'cached_share_too_small'))?.[1], '2');
    assert.match(metrics, /# TYPE dynamo_frontend_prefill_decisions_total counter/);
  } finally {
    await cluster.stop();
  }
});

test('conditional disaggregation off: every disaggregated request is prefilled remotely and counted as such', async () => {
  const cluster = await startDisaggregated({ prefillWorkers: 1, decodeWorkers: 1, args: FAST });
  try {
    const openai = new OpenAI({ baseURL: `${cluster.baseUrl}/v1`, apiKey: 'unused', maxRetries: 0 });
    const prompt = 'Repeat after me: the quick brown fox jumps over the lazy dog, again and again. '.repeat(6);
    for (let i = 0; i < 2; i++) await openai.completions.create({ model: MODEL, prompt, max_tokens: 3 });
    assert.equal(sum(cluster.prefill!.engines.map((e) => e.stats().numFinishedRequests)), 2);
    const metrics = await (await fetch(`${cluster.baseUrl}/metrics`)).text();
    assert.match(metrics, /dynamo_frontend_prefill_decisions_total\{model="[^"]+",decision="remote",reason="conditional_disagg_off"\} 2/);
  } finally {
    await cluster.stop();
  }
});
