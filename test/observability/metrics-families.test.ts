// Every metric family of reference/http.md §2.4 (and the model/worker gauges of operate-faults.md
// §4) on /metrics of a running frontend, with upstream's name, type, labels and buckets.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { serveInjected } from '../support/in-process.js';
import { fetchFor } from '../support/injected-fetch.js';
import { families, scrape, type Family } from '../support/prometheus-text.js';

const MODEL = 'Qwen/Qwen3-0.6B';
const P = 'dynamo_frontend_';

const INPUT = [0, 100, 210, 430, 870, 1800, 3600, 7400, 15000, 31000, 63000, 130000];
const WORKER_LABELS = ['dp_rank', 'worker_id', 'worker_type'];

/** name → [type, label names (sorted, `le` excluded), buckets for histograms]. */
const EXPECTED: Record<string, [Family['type'], string[], number[]?]> = {
  requests_total: ['counter', ['endpoint', 'error_type', 'model', 'request_type', 'status']],
  requests_started_total: ['counter', ['endpoint', 'model', 'request_type']],
  inflight_requests: ['gauge', ['model']],
  active_requests: ['gauge', ['model']],
  queued_requests: ['gauge', ['model']],
  disconnected_clients: ['gauge', []],
  request_duration_seconds: ['histogram', ['model'], [0, 2, 4, 8, 16, 32, 64, 130, 260, 510]],
  input_sequence_tokens: ['histogram', ['model'], INPUT],
  cached_tokens: ['histogram', ['model'], INPUT],
  output_sequence_tokens: ['histogram', ['model'], [0, 100, 210, 430, 880, 1800, 3700, 7600, 16000, 32000]],
  time_to_first_token_seconds: [
    'histogram',
    ['model'],
    [0, 0.0022, 0.0047, 0.01, 0.022, 0.047, 0.1, 0.22, 0.47, 1, 2.2, 4.7, 10, 22, 48, 100, 220, 480],
  ],
  inter_token_latency_seconds: ['histogram', ['model'], [0, 0.0019, 0.0035, 0.0067, 0.013, 0.024, 0.045, 0.084, 0.16, 0.3, 0.56, 1.1, 2]],
  output_tokens_total: ['counter', ['model']],
  tokenizer_latency_ms: ['histogram', ['operation'], [0.5, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512]],
  model_ready: ['gauge', ['model']],
  model_context_length: ['gauge', ['model']],
  model_kv_cache_block_size: ['gauge', ['model']],
  model_migration_limit: ['gauge', ['model']],
  model_total_kv_blocks: ['gauge', ['model']],
  model_instances: ['gauge', ['model']],
  model_down_instances: ['gauge', ['model']],
  worker_active_decode_blocks: ['gauge', WORKER_LABELS],
  worker_active_prefill_tokens: ['gauge', WORKER_LABELS],
  worker_inflight_requests: ['gauge', WORKER_LABELS],
};

/** Families that exist from the start but get series only from events this test does not cause. */
const DECLARED_ONLY: Record<string, Family['type']> = {
  model_cancellation_total: 'counter',
  model_rejection_total: 'counter',
  model_migration_total: 'counter',
  model_migration_duration_seconds: 'histogram',
};

function checkFamily(all: Map<string, Family>, suffix: string, [type, labels, buckets]: [Family['type'], string[], number[]?]): void {
  const family = all.get(P + suffix);
  assert.ok(family, `${P + suffix} is missing`);
  assert.equal(family.type, type, `${P + suffix} type`);
  assert.ok(family.samples.length > 0, `${P + suffix} has a series`);
  for (const s of family.samples) assert.deepEqual(Object.keys(s.labels).filter((l) => l !== 'le').sort(), labels, `${s.name} labels`);
  if (buckets) {
    const first = family.samples[0]!.labels;
    const les = family.samples.filter((s) => s.name.endsWith('_bucket') && s.labels.model === first.model && s.labels.operation === first.operation).map((s) => s.labels.le);
    assert.deepEqual(les, [...buckets.map(String), '+Inf'], `${P + suffix} buckets`);
  }
}

describe('/metrics families of a chat model', () => {
  let ctx: Awaited<ReturnType<typeof serveInjected>>;
  before(async () => {
    ctx = await serveInjected(['--speedup-ratio', '1000']);
    const client = new OpenAI({ baseURL: `${ctx.baseUrl}/v1`, fetch: fetchFor(ctx.baseUrl), apiKey: 'unused' });
    const stream = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 4,
      stream: true,
      stream_options: { include_usage: true },
    });
    for await (const chunk of stream) void chunk;
  });
  after(async () => ctx.service.stop());

  test('every family of §2.4 with upstream name, type, labels and buckets', async () => {
    const all = families(await scrape(ctx.baseUrl));
    for (const [suffix, expected] of Object.entries(EXPECTED)) checkFamily(all, suffix, expected);
    for (const [suffix, type] of Object.entries(DECLARED_ONLY)) assert.equal(all.get(P + suffix)?.type, type, `${P + suffix} declared`);
  });

  test('process metrics: CPU, RSS, event-loop lag, GC, and the event-loop canary', async () => {
    let all = families(await scrape(ctx.baseUrl));
    for (const [name, type] of Object.entries({
      process_cpu_seconds_total: 'counter',
      process_resident_memory_bytes: 'gauge',
      nodejs_eventloop_lag_seconds: 'gauge',
      nodejs_gc_duration_seconds: 'histogram',
      nodejs_heap_size_used_bytes: 'gauge',
      [`${P}event_loop_stall_total`]: 'counter',
    })) {
      assert.equal(all.get(name)?.type, type, `${name} ${type}`);
    }
    assert.ok((all.get('process_resident_memory_bytes')!.samples[0]?.value ?? 0) > 0);
    // The canary observes on its own; wait for its first sample rather than for a time.
    const canaryCount = () => all.get(`${P}event_loop_delay_seconds`)?.samples.find((s) => s.name.endsWith('_count'))?.value ?? 0;
    const deadline = Date.now() + 60_000;
    while (canaryCount() === 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
      all = families(await scrape(ctx.baseUrl));
    }
    assert.ok(canaryCount() > 0, 'the event-loop canary observed');
    const les = all.get(`${P}event_loop_delay_seconds`)!.samples.filter((s) => s.name.endsWith('_bucket')).map((s) => s.labels.le);
    assert.deepEqual(les, ['0', '0.001', '0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '+Inf']);
  });

  test('model and worker gauges describe the served model and its worker', async () => {
    const all = families(await scrape(ctx.baseUrl));
    const value = (name: string) => all.get(P + name)!.samples.find((s) => s.labels.model === MODEL)?.value;
    assert.equal(value('model_ready'), 1);
    assert.equal(value('model_instances'), 1);
    assert.equal(value('model_down_instances'), 0);
    assert.ok((value('model_context_length') ?? 0) > 0);
    assert.ok((value('model_kv_cache_block_size') ?? 0) > 0);
    assert.equal(value('queued_requests'), 0);
    const tokenize = all.get(`${P}tokenizer_latency_ms`)!.samples.find((s) => s.name.endsWith('_count'));
    assert.deepEqual([tokenize?.labels, tokenize?.value], [{ operation: 'tokenize' }, 1], 'the chat prompt was tokenized once');
    assert.ok((value('model_total_kv_blocks') ?? 0) > 0, 'the mocker publishes its KV capacity');
    const workers = all.get(`${P}worker_inflight_requests`)!.samples;
    assert.equal(workers.length, 1);
    assert.equal(workers[0]!.labels.worker_type, 'decode');
    assert.equal(workers[0]!.value, 0, 'no request in flight after the stream ended');
  });
});

test('embedding_latency_seconds counts embedding requests with upstream buckets', async () => {
  const ctx = await serveInjected(['--model-type', 'embedding']);
  try {
    const client = new OpenAI({ baseURL: `${ctx.baseUrl}/v1`, fetch: fetchFor(ctx.baseUrl), apiKey: 'unused' });
    await client.embeddings.create({ model: MODEL, input: 'hello', encoding_format: 'float' });
    const family = families(await scrape(ctx.baseUrl)).get(`${P}embedding_latency_seconds`);
    assert.equal(family?.type, 'histogram');
    assert.equal(family.samples.find((s) => s.name.endsWith('_count'))?.value, 1);
    const les = family.samples.filter((s) => s.name.endsWith('_bucket')).map((s) => Number(s.labels.le));
    assert.equal(les[0], 0);
    assert.equal(les[les.length - 2], 10, 'the last finite bucket is 10 s');
  } finally {
    await ctx.service.stop();
  }
});

test('a KV router reports each decision: kv hit rate and overlap blocks, and per-worker gauges for each worker', async () => {
  const ctx = await serveInjected(['--num-workers', '2', '--router-mode', 'kv', '--block-size', '16', '--speedup-ratio', '1000']);
  try {
    const client = new OpenAI({ baseURL: `${ctx.baseUrl}/v1`, fetch: fetchFor(ctx.baseUrl), apiKey: 'unused' });
    const prompt = 'the same long prompt '.repeat(20);
    for (let i = 0; i < 2; i++) await client.completions.create({ model: MODEL, prompt, max_tokens: 2 });
    const all = families(await scrape(ctx.baseUrl));
    const hit = all.get('dynamo_component_router_kv_hit_rate');
    assert.equal(hit?.type, 'histogram');
    const labels = { dynamo_namespace: 'dynamo', dynamo_component: 'backend', dynamo_endpoint: 'generate', model: MODEL };
    const count = hit.samples.find((s) => s.name.endsWith('_count'));
    assert.deepEqual(count?.labels, labels);
    assert.equal(count.value, 2, 'one observation per routing decision');
    const les = hit.samples.filter((s) => s.name.endsWith('_bucket')).map((s) => Number(s.labels.le));
    assert.equal(les.length, 22);
    assert.equal(les[1], 0.05);
    assert.equal(les[20], 1);
    const overlap = all.get('dynamo_component_router_overlap_blocks');
    assert.equal(overlap?.samples.find((s) => s.name.endsWith('_count'))?.value, 2);
    assert.equal(all.get(`${P}worker_active_prefill_tokens`)?.samples.length, 2, 'one series per worker');
  } finally {
    await ctx.service.stop();
  }
});
