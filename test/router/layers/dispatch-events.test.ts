// The router reports each attempt's dispatch through GenerateContext.dispatched: the chosen
// instance, the router mode and (kv) the predicted overlap; the trace context it gets back reaches
// the worker's context; each call's end is reported once, with the error of a lost worker.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  WorkerLostError,
  type DispatchInfo,
  type EngineClient,
  type GenerateContext,
  type LLMEngineOutput,
  type PreprocessedRequest,
  type TraceHeaders,
} from '../../../src/protocols/index.js';
import { createRouterPolicy, PushRouter, type WorkerInstance } from '../../../src/router/index.js';
import { fastEngine, prompt, request } from '../../engines/mocker/helpers.js';
import { losingEngine } from '../../support/lost-workers.js';

const mocker = fastEngine();
test.after(() => mocker.close());

const REQ = request(prompt(20, 3), { seed: 5, maxTokens: 8, ignoreEos: true });

/** An engine that records the trace context each call arrives with. */
function recording(engine: EngineClient, seen: (TraceHeaders | undefined)[]): EngineClient {
  return {
    generate(req: PreprocessedRequest, ctx: GenerateContext): AsyncIterable<LLMEngineOutput> {
      seen.push(ctx.trace);
      return engine.generate(req, ctx);
    },
  };
}

interface Observed {
  dispatches: DispatchInfo[];
  ends: unknown[];
  ctx: GenerateContext;
}

function observedContext(): Observed {
  const dispatches: DispatchInfo[] = [];
  const ends: unknown[] = [];
  const ctx: GenerateContext = {
    requestId: 'd1',
    signal: new AbortController().signal,
    dispatched(info) {
      dispatches.push(info);
      const n = dispatches.length;
      return { trace: { traceparent: `00-${'a'.repeat(32)}-${String(n).padStart(16, '0')}-01` }, end: (error) => ends.push(error ?? 'ok') };
    },
  };
  return { dispatches, ends, ctx };
}

async function drain(stream: AsyncIterable<LLMEngineOutput>): Promise<number> {
  let n = 0;
  for await (const out of stream) n += out.token_ids.length;
  return n;
}

test('a lost worker and the retry are two dispatches; the first ends with its error, each call carries its own trace context', async () => {
  const traces: (TraceHeaders | undefined)[] = [];
  const r = new PushRouter('mock', createRouterPolicy('round-robin'), { mode: 'round-robin', migration: { limit: 1, maxSeqLen: null, logger: { warn: () => undefined } } });
  const workers: WorkerInstance[] = [
    { id: 1n, client: recording(losingEngine(mocker, 3, 'worker 1'), traces) },
    { id: 2n, client: recording(losingEngine(mocker, Infinity, 'worker 2'), traces) },
  ];
  r.setInstances(workers);
  const { dispatches, ends, ctx } = observedContext();
  assert.equal(await drain(r.generate(REQ, ctx)), 8);
  assert.deepEqual(dispatches.map((d) => [d.instanceId, d.routerMode, d.overlapBlocks]), [[1n, 'round-robin', undefined], [2n, 'round-robin', undefined]]);
  for (const d of dispatches) assert.ok(d.routingStartedAt <= performance.now());
  assert.equal(ends.length, 2);
  assert.ok(ends[0] instanceof WorkerLostError);
  assert.equal(ends[1], 'ok');
  assert.deepEqual(traces.map((t) => t?.traceparent.slice(-19, -3)), ['0000000000000001', '0000000000000002']);
});

test('kv routing reports the overlap it predicted for the chosen worker', async () => {
  const r = new PushRouter('mock', createRouterPolicy('kv', { kv: { blockSize: 16 } }), { mode: 'kv' });
  r.setInstances([{ id: 7n, client: mocker }]);
  const { dispatches, ends, ctx } = observedContext();
  await drain(r.generate(REQ, ctx));
  assert.equal(dispatches.length, 1);
  assert.equal(dispatches[0]!.routerMode, 'kv');
  assert.equal(dispatches[0]!.overlapBlocks, 0);
  assert.deepEqual(ends, ['ok']);
});

test('without the hook the engine gets the context untouched', async () => {
  const traces: (TraceHeaders | undefined)[] = [];
  const r = new PushRouter('mock', createRouterPolicy('round-robin'));
  r.setInstances([{ id: 1n, client: recording(mocker, traces) }]);
  const ctx: GenerateContext = { requestId: 'd2', signal: new AbortController().signal };
  await drain(r.generate(REQ, ctx));
  assert.deepEqual(traces, [undefined]);
});
