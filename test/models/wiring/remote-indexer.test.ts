// The consumer side of a served indexer: round robin over the serving instances, u64s exact both
// ways, and every failure (none served, an Error answer, no answer in time) a null answer that is
// warned about once per outage.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RemoteIndexer } from '../../../src/models/wiring/index.js';
import type { Logger } from '../../../src/observability/index.js';
import type { CallContext, EndpointInstance, RequestPlaneClient } from '../../../src/runtime/index.js';

const MAX_U64 = 2n ** 64n - 1n;
const served = (id: bigint) => ({ namespace: 'ns', component: 'backend', endpoint: 'kv_indexer_query', instanceId: id }) as EndpointInstance;
const answer = (worker: bigint, blocks: number) => ({
  TieredScores: { device: { scores: [[{ worker_id: worker, dp_rank: 0 }, blocks]], frequencies: [] }, lower_tier: [['host_pinned', { hits: [[{ worker_id: worker, dp_rank: 0 }, blocks + 1]] }], ['gpu_remote', { hits: [] }]] },
});

/** A request plane whose instances answer with `reply(instance)` (an item's data), or never when it returns undefined. */
function plane(reply: (inst: EndpointInstance) => unknown) {
  const calls: { instance: bigint; request: unknown; ctx: CallContext }[] = [];
  const client: RequestPlaneClient = {
    async *stream(target, request, ctx) {
      calls.push({ instance: target.instanceId, request, ctx });
      const data = reply(target);
      if (data !== undefined) {
        yield { data };
        return;
      }
      await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
      throw new Error('aborted');
    },
    probe: async () => true,
    close: async () => undefined,
  };
  return { client, calls };
}

function logs() {
  const lines: { level: string; fields: Record<string, unknown>; msg: string }[] = [];
  const at = (level: string) => (fields: Record<string, unknown>, msg: string) => void lines.push({ level, fields, msg });
  return { logger: { warn: at('warn'), info: at('info') } as unknown as Logger, lines };
}

const signal = () => new AbortController().signal;

test('asks the serving instances in turn with the u64 hashes and reads every tier it knows', async () => {
  const { client, calls } = plane((inst) => answer(MAX_U64, Number(inst.instanceId)));
  const { logger, lines } = logs();
  const indexer = new RemoteIndexer({ model: 'm', instances: () => [served(1n), served(2n)], client, logger });
  const first = await indexer.query([MAX_U64, 7n], signal());
  const second = await indexer.query([1n], signal());
  assert.deepEqual(calls.map((c) => c.instance), [1n, 2n]);
  assert.deepEqual(calls[0]!.request, { model_name: 'm', block_hashes: [MAX_U64, 7n], device_only: false });
  assert.equal(calls[0]!.ctx.exactIntegers, true);
  assert.deepEqual(first, { device: [{ workerId: MAX_U64, dpRank: 0, blocks: 1, treeSize: 0 }], lower: [['host_pinned', [{ workerId: MAX_U64, dpRank: 0, blocks: 2, treeSize: 0 }]]] });
  assert.equal(second?.device[0]?.blocks, 2);
  assert.deepEqual(lines, []);
});

test('an Error answer, no served instance, no answer in time: null, warned once per outage', async () => {
  let mode: 'error' | 'silent' | 'ok' = 'error';
  const { client } = plane(() => (mode === 'error' ? { Error: 'served indexer model m is not registered' } : mode === 'ok' ? answer(1n, 2) : undefined));
  const { logger, lines } = logs();
  let instances = [served(1n)];
  const indexer = new RemoteIndexer({ model: 'm', instances: () => instances, client, logger, timeoutMs: 10 });
  assert.equal(await indexer.query([1n], signal()), null);
  mode = 'silent';
  assert.equal(await indexer.query([1n], signal()), null);
  instances = [];
  assert.equal(await indexer.query([1n], signal()), null);
  assert.deepEqual(lines.map((l) => [l.level, l.fields]), [['warn', { model: 'm', reason: 'served indexer model m is not registered' }]]);
  instances = [served(1n)];
  mode = 'ok';
  assert.equal((await indexer.query([1n], signal()))?.device.length, 1);
  mode = 'silent';
  assert.equal(await indexer.query([1n], signal()), null);
  assert.deepEqual(lines.map((l) => [l.level, l.fields.reason]), [['warn', 'served indexer model m is not registered'], ['info', undefined], ['warn', 'no answer in time']]);
});

test('a request its client gave up on is not an outage', async () => {
  const { client } = plane(() => undefined);
  const { logger, lines } = logs();
  const indexer = new RemoteIndexer({ model: 'm', instances: () => [served(1n)], client, logger, timeoutMs: 60_000 });
  const gone = new AbortController();
  const asked = indexer.query([1n], gone.signal);
  gone.abort();
  assert.equal(await asked, null);
  assert.deepEqual(lines, []);
});
