// A kv policy with a remote indexer: the routing chain fetches the prompt's matches before the
// policy selects, and the policy scores with them instead of a local indexer.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EngineClient, LLMEngineOutput, PreprocessedRequest } from '../../../src/protocols/index.js';
import { createRouterPolicy, KvRouterPolicy, PushRouter, type RemoteMatches, type TieredMatches } from '../../../src/router/index.js';
import { computeLocalBlockHashes } from '../../../src/router/kv/index.js';

const BLOCK = 4;
const tokens = Array.from({ length: 16 }, (_, i) => 100 + i);
const request = (routing: PreprocessedRequest['routing'] = null): PreprocessedRequest => ({
  model: 'm', token_ids: tokens, stop_conditions: {}, sampling_options: {}, output_options: {}, eos_token_ids: [], routing,
});
const engine = (served: string[], name: string): EngineClient => ({
  async *generate(): AsyncGenerator<LLMEngineOutput> {
    served.push(name);
    yield { token_ids: [1], finish_reason: 'length' };
  },
});
const overlap = (workerId: number, blocks: number) => ({ workerId: BigInt(workerId), dpRank: 0, blocks, treeSize: 0 });

/** A remote indexer that answers `matches` and records the hashes it was asked about. */
function remote(matches: TieredMatches | null): RemoteMatches & { asked: (readonly bigint[])[] } {
  const asked: (readonly bigint[])[] = [];
  return { asked, query: async (hashes) => (asked.push(hashes), matches) };
}

async function route(policyRemote: RemoteMatches, req = request()) {
  const served: string[] = [];
  const policy = new KvRouterPolicy({ blockSize: BLOCK, remoteIndexer: policyRemote });
  const router = new PushRouter('m', policy, {});
  router.setInstances([1, 2, 3].map((id) => ({ id: BigInt(id), client: engine(served, String(id)) })));
  for await (const _ of router.generate(req, { requestId: 'r', signal: new AbortController().signal })) void _;
  return { served, decision: policy.lastDecision, policy };
}

test('the remote device scores decide: the worker holding the prompt is chosen, with its overlap', async () => {
  const indexer = remote({ device: [overlap(2, 4), overlap(3, 1)], lower: [] });
  const { served, decision, policy } = await route(indexer);
  assert.deepEqual(served, ['2']);
  assert.equal(decision?.overlapBlocks, 4);
  assert.deepEqual(indexer.asked, [computeLocalBlockHashes(tokens, BLOCK)], 'asked with the local block hashes');
  assert.equal(policy.appliesEvents, false, 'no local indexer is fed');
});

test('lower tiers weigh as with a local indexer: a host hit beyond the device prefix wins', async () => {
  const { served } = await route(remote({ device: [overlap(1, 1)], lower: [['host_pinned', [overlap(3, 4)]]] }));
  assert.deepEqual(served, ['3']);
});

test('no answer: routed on load alone (zero overlap), never failed', async () => {
  const { served, decision } = await route(remote(null));
  assert.equal(served.length, 1);
  assert.equal(decision?.overlapBlocks, 0);
});

test('a pinned request is not prepared: the remote indexer is not asked', async () => {
  const indexer = remote({ device: [overlap(2, 4)], lower: [] });
  const { served } = await route(indexer, request({ backend_instance_id: 3 }));
  assert.deepEqual(served, ['3']);
  assert.deepEqual(indexer.asked, []);
});

test('without a remote indexer, or when no hit earns credit, the kv policy has no prepare step', () => {
  assert.equal(createRouterPolicy('kv', { kv: { blockSize: BLOCK } }).prepare, undefined);
  const unweighted = { overlapScoreCredit: 0, hostCacheHitWeight: 0, diskCacheHitWeight: 0 };
  assert.equal(new KvRouterPolicy({ blockSize: BLOCK, remoteIndexer: remote(null), ...unweighted }).prepare, undefined);
  assert.equal(typeof new KvRouterPolicy({ blockSize: BLOCK, remoteIndexer: remote(null), ...unweighted, hostCacheHitWeight: 0.5 }).prepare, 'function');
});
