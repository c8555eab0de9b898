import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UnavailableError, type NvCreateTensorRequest, type NvCreateTensorResponse, type TensorEngine } from '../../src/protocols/index.js';
import { RoundRobinPolicy, Router, TensorRouter } from '../../src/router/index.js';

const request: NvCreateTensorRequest = { id: null, model: 'echo', tensors: [] };
const ctx = { requestId: 'r', signal: new AbortController().signal };

function worker(name: string): TensorEngine {
  return {
    async *generate(): AsyncGenerator<NvCreateTensorResponse> {
      yield { model: name, tensors: [] };
    },
  };
}

async function servedBy(router: TensorRouter): Promise<string> {
  const models: string[] = [];
  for await (const out of router.generate(request, ctx)) models.push(out.model);
  return models.join();
}

test('tensor models go round-robin through the shared router', async () => {
  const router = new TensorRouter('echo');
  assert.ok(router instanceof Router);
  assert.ok(router.policy instanceof RoundRobinPolicy);
  router.setInstances([
    { id: 3n, client: worker('c') },
    { id: 1n, client: worker('a') },
    { id: 2n, client: worker('b') },
  ]);
  const order: string[] = [];
  for (let i = 0; i < 6; i++) order.push(await servedBy(router));
  assert.deepEqual(order, ['a', 'b', 'c', 'a', 'b', 'c']);
  assert.deepEqual(router.instanceIds, [1n, 2n, 3n]);
  assert.equal(router.load.inflight(1n), 0, 'their load is tracked and released');
});

test('a tensor model without instances is not ready (503)', () => {
  const router = new TensorRouter('echo');
  assert.throws(() => router.generate(request, ctx), (err: unknown) => err instanceof UnavailableError && /Model `echo` is not ready/.test(err.message));
});
