// `--enable-session-prefix-index` in the kv policy: routed requests of a session and the workers'
// KV events (from the event plane, with their session_id) keep the index the policy offers; off,
// there is none and routing is as before.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KvCacheEvent, PreprocessedRequest, RouterEvent } from '../../../src/protocols/index.js';
import { computeLocalBlockHashes, computeSequenceHashes } from '../../../src/router/kv/index.js';
import { KvRouterPolicy, PushRouter, type SessionPrefixView, type WorkerInstance } from '../../../src/router/index.js';
import { PolicyWiring } from '../../../src/models/wiring/index.js';
import { decodeRouterEvent, encodeRouterEvent, kvEventSubject, LocalEventPlane } from '../../../src/runtime/index.js';

const BLOCK = 4;
const PROMPT = Array.from({ length: 32 }, (_, i) => i);
const SEQ = computeSequenceHashes(computeLocalBlockHashes(PROMPT, BLOCK));

function request(tokens: number[], sessionId?: string): PreprocessedRequest {
  const routing = sessionId === undefined ? null : { session_id: sessionId };
  return { model: 'm', token_ids: tokens, stop_conditions: {}, sampling_options: {}, output_options: {}, eos_token_ids: [], routing };
}

/** The first `blocks` blocks of the prompt, stored by a worker. */
function stored(blocks: number): KvCacheEvent {
  const local = computeLocalBlockHashes(PROMPT.slice(0, blocks * BLOCK), BLOCK);
  return { event_id: 0, dp_rank: 0, data: { stored: { parent_hash: null, blocks: local.map((l, i) => ({ tokens_hash: l, block_hash: SEQ[i]!, mm_extra_info: null })) } } };
}

const instances = (...ids: number[]): WorkerInstance[] =>
  ids.map((id) => ({ id: BigInt(id), client: { async *generate() {} } }));

function lineageOn(view: SessionPrefixView, session: string, workerId: bigint): bigint[][] {
  const answer = view.getSessionBlockLineage(session, { workerId, dpRank: 0 });
  assert.ok('lineages' in answer);
  return answer.lineages;
}

test('off by default: the policy offers no index and routes a session request as any other', () => {
  const policy = new KvRouterPolicy({ blockSize: BLOCK });
  assert.equal(policy.sessionPrefixIndex, null);
  const router = new PushRouter('m', policy);
  router.setInstances(instances(1, 2));
  policy.applyKvEvent(2n, stored(6), 'device', 's1');
  assert.equal(router.pick(request(PROMPT, 's1')).id, 2n);
  assert.equal(policy.sessionPrefixIndex, null);
});

async function dispatch(router: PushRouter, req: PreprocessedRequest, requestId: string): Promise<void> {
  for await (const _ of router.generate(req, { requestId, signal: new AbortController().signal }));
}

test('a dispatched session request makes the deepest block its worker holds of the prompt the session frontier there', async () => {
  const policy = new KvRouterPolicy({ blockSize: BLOCK, sessionPrefixIndex: true });
  const index = policy.sessionPrefixIndex!;
  const router = new PushRouter('m', policy);
  router.setInstances(instances(1, 2));
  policy.applyKvEvent(2n, stored(6));
  assert.equal(index.sessionCount, 0, 'a stored chain naming no session attributes nothing');

  assert.equal(router.pick(request(PROMPT, 's1')).id, 2n);
  assert.equal(index.sessionCount, 0, 'a choice alone records nothing: the dispatch does');
  await dispatch(router, request(PROMPT, 's1'), 'a');
  assert.equal(policy.lastDecision!.workerId, 2n);
  assert.deepEqual(lineageOn(index, 's1', 2n), [[SEQ[5]!]], 'a match names no parent: the matched block is a root');
  assert.deepEqual(index.getSessionFrontiers('s1'), [{ worker: { workerId: 2n, dpRank: 0 }, node: index.getNodeFromHash(SEQ[5]!) }]);

  await dispatch(router, request(PROMPT), 'b');
  assert.equal(index.sessionCount, 1, 'a request without a session records nothing');
  await dispatch(router, request([900, 901, 902, 903, 904], 's2'), 'c');
  assert.equal(index.sessionCount, 1, 'a worker holding none of the prompt records nothing');
});

test('a request pinned to a worker records its cached prefix there too', async () => {
  const policy = new KvRouterPolicy({ blockSize: BLOCK, sessionPrefixIndex: true });
  const router = new PushRouter('m', policy);
  router.setInstances(instances(1, 2));
  policy.applyKvEvent(1n, stored(6));
  policy.applyKvEvent(2n, stored(3));
  const pinned = { ...request(PROMPT, 's1'), routing: { session_id: 's1', backend_instance_id: 2 } };
  await dispatch(router, pinned, 'p');
  assert.deepEqual(policy.sessionPrefixIndex!.getSessionFrontiers('s1').map((f) => f.worker.workerId), [2n], 'the pinned worker, not the best cached one');
  assert.deepEqual(lineageOn(policy.sessionPrefixIndex!, 's1', 2n), [[SEQ[2]!]]);
});

test('KV events: a chain stored for a session advances it; removals move frontiers back; a leaving worker drops them', () => {
  const policy = new KvRouterPolicy({ blockSize: BLOCK, sessionPrefixIndex: true });
  const index = policy.sessionPrefixIndex!;
  policy.onInstancesChanged(instances(1, 2));
  policy.applyKvEvent(1n, stored(4), 'device', 's1');
  policy.applyKvEvent(1n, stored(2), 'host_pinned', 's2');
  assert.deepEqual(lineageOn(index, 's1', 1n), [SEQ.slice(0, 4)]);
  assert.deepEqual(index.getSessionFrontiers('s2'), [], 'only device events feed the index');

  policy.applyKvEvent(1n, { event_id: 1, dp_rank: 0, data: { removed: { block_hashes: [SEQ[2]!] } } });
  assert.deepEqual(lineageOn(index, 's1', 1n), [SEQ.slice(0, 2)]);
  assert.equal(index.nodeCount, 2);

  policy.onInstancesChanged(instances(2));
  assert.equal(index.sessionCount, 0);
  assert.equal(index.nodeCount, 0);
});

test('a session_id on the event plane reaches the index through the wiring', async () => {
  const plane = new LocalEventPlane();
  const policy = new KvRouterPolicy({ blockSize: BLOCK, sessionPrefixIndex: true });
  const logger = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined };
  const wiring = new PolicyWiring({ events: () => plane, logger: logger as never, replicaSync: false });
  const stop = await wiring.prefill('m', { kvEvents: policy }, { namespace: 'ns', component: 'backend' })!;
  const event: RouterEvent = { worker_id: 3n, event: stored(3), session_id: 'agent-7' };
  const text = encodeRouterEvent(event);
  assert.match(text, /"session_id":"agent-7"/);
  assert.deepEqual(decodeRouterEvent(text), event);
  plane.publish(kvEventSubject('ns', 'backend'), text);
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(lineageOn(policy.sessionPrefixIndex!, 'agent-7', 3n), [SEQ.slice(0, 3)]);
  stop();
});
