// The session prefix index on its own: frontiers per session and worker rank over one shared
// forest, what matches, stored chains, removals and clears do to them, and the session bound.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SessionPrefixIndex, DEFAULT_MAX_SESSIONS, type SessionPrefixView } from '../../../src/router/kv/session-prefix/index.js';

const W1 = { workerId: 1n, dpRank: 0 };
const W2 = { workerId: 2n, dpRank: 0 };
const W1_RANK1 = { workerId: 1n, dpRank: 1 };

/** Block hashes 1n, 2n, ... for readability. */
const chain = (...ids: number[]): bigint[] => ids.map(BigInt);

function lineage(index: SessionPrefixView, session: string, worker = W1, anchor?: bigint): bigint[][] {
  const answer = index.getSessionBlockLineage(session, worker, anchor);
  assert.ok('lineages' in answer, 'a known anchor (or none) answers with lineages');
  return answer.lineages.map((l) => [...l]).sort((a, b) => Number(a.at(-1)! - b.at(-1)!));
}

test('a routed match starts a lineage; matching the same block again is no advance and grows nothing', () => {
  const index = new SessionPrefixIndex();
  assert.equal(index.updateSessionFromMatch('s1', W1, 1n), true);
  assert.equal(index.nodeCount, 1);
  assert.deepEqual(lineage(index, 's1'), [[1n]]);
  assert.equal(index.updateSessionFromMatch('s1', W1, 1n), false);
  assert.equal(index.nodeCount, 1);
  assert.equal(index.getSessionFrontiers('s1').length, 1);
});

test('a deeper block replaces the frontier above it; a block above the frontier changes nothing', () => {
  const index = new SessionPrefixIndex();
  assert.equal(index.updateSessionFromStoredBlocks('s1', W1, null, chain(1, 2, 3)), true);
  assert.equal(index.updateSessionFromMatch('s1', W1, 2n), false, 'a match above the frontier is no advance');
  assert.deepEqual(lineage(index, 's1'), [chain(1, 2, 3)]);
  assert.equal(index.updateSessionFromMatch('s2', W1, 2n), true);
  assert.deepEqual(lineage(index, 's2'), [chain(1, 2)]);
  const [frontier] = index.getSessionFrontiers('s2');
  assert.deepEqual(frontier!.worker, W1);
  assert.deepEqual(index.getNode(frontier!.node), { blockHash: 2n, parent: index.getNodeFromHash(1n), frontierRefs: 1, childCount: 1 });
});

test('sessions share their common trunk: it is stored once', () => {
  const index = new SessionPrefixIndex();
  index.updateSessionFromStoredBlocks('s1', W1, null, chain(1, 2));
  index.updateSessionFromStoredBlocks('s2', W1, null, chain(1, 2));
  index.updateSessionFromStoredBlocks('s2', W1, 2n, chain(3));
  assert.equal(index.nodeCount, 3);
  assert.deepEqual(lineage(index, 's1'), [chain(1, 2)]);
  assert.deepEqual(lineage(index, 's2'), [chain(1, 2, 3)]);
  assert.equal(index.sessionCount, 2);
});

test('a block first seen as a match is grafted under the parent a stored chain gives it, keeping its node', () => {
  const index = new SessionPrefixIndex();
  index.updateSessionFromMatch('s1', W1, 2n);
  const node = index.getNodeFromHash(2n)!;
  assert.equal(index.getNode(node)!.parent, null);
  index.updateSessionFromStoredBlocks('s1', W1, 1n, chain(2));
  assert.equal(index.getNodeFromHash(2n), node);
  assert.equal(index.nodeCount, 2);
  assert.deepEqual(lineage(index, 's1'), [chain(1, 2)]);
});

test('a chain putting a block under a second parent, or under itself, is refused whole and counted', () => {
  const index = new SessionPrefixIndex();
  index.updateSessionFromStoredBlocks('s1', W1, null, chain(1, 2));
  assert.deepEqual(index.updateSessionFromStoredBlocks('s1', W1, 3n, chain(2)), { reason: 'conflicting_parent', block: 2n });
  assert.deepEqual(index.updateSessionFromStoredBlocks('s1', W1, 2n, chain(4, 1)), { reason: 'cyclic_parent', block: 1n });
  assert.equal(index.rejectedChains, 2);
  assert.equal(index.nodeCount, 2, 'nothing of a refused chain is kept');
  assert.equal(index.getNodeFromHash(4n), null);
  assert.deepEqual(lineage(index, 's1'), [chain(1, 2)]);
});

test('a session keeps one frontier per branch; an anchor keeps the chains through it, from it', () => {
  const index = new SessionPrefixIndex();
  index.updateSessionFromStoredBlocks('s1', W1, null, chain(1, 2));
  index.updateSessionFromStoredBlocks('s1', W1, 2n, chain(3));
  index.updateSessionFromStoredBlocks('s1', W1, 2n, chain(4));
  index.updateSessionFromStoredBlocks('s1', W1, null, chain(5));
  assert.equal(index.getSessionFrontiers('s1').length, 3);
  assert.deepEqual(lineage(index, 's1'), [chain(1, 2, 3), chain(1, 2, 4), chain(5)]);
  assert.deepEqual(lineage(index, 's1', W1, 2n), [chain(2, 3), chain(2, 4)]);
  assert.deepEqual(index.getSessionBlockLineage('s1', W1, 99n), { unknownAnchor: 99n });
  assert.deepEqual(lineage(index, 'never-routed'), [], 'an unknown session has no lineage, which is no error');
  assert.deepEqual(lineage(index, 's1', W2), [], 'lineage is per worker rank');
});

test('removed blocks move back only that worker rank\'s frontiers, to the parent of the shallowest removed block', () => {
  const index = new SessionPrefixIndex();
  for (const worker of [W1, W2, W1_RANK1]) index.updateSessionFromStoredBlocks('s1', worker, null, chain(1, 2, 3));
  assert.equal(index.updateSessionFromRemovedBlocks(W2, chain(2, 3)), 1);
  assert.deepEqual(lineage(index, 's1', W1), [chain(1, 2, 3)]);
  assert.deepEqual(lineage(index, 's1', W1_RANK1), [chain(1, 2, 3)]);
  assert.deepEqual(lineage(index, 's1', W2), [chain(1)]);
  assert.equal(index.nodeCount, 3, 'blocks other frontiers still reach stay');
});

test('a removal batch moves every session once; replaying it moves nothing', () => {
  const index = new SessionPrefixIndex();
  for (const s of ['s1', 's2']) index.updateSessionFromStoredBlocks(s, W1, null, chain(1, 2, 3));
  assert.equal(index.updateSessionFromRemovedBlocks(W1, chain(3, 2)), 2);
  for (const s of ['s1', 's2']) assert.deepEqual(lineage(index, s), [chain(1)]);
  assert.equal(index.updateSessionFromRemovedBlocks(W1, chain(2, 3)), 0);
});

test('an interior removal moves the frontier above it; removing the old tail afterwards moves nothing', () => {
  const index = new SessionPrefixIndex();
  index.updateSessionFromStoredBlocks('s1', W1, null, chain(1, 2, 3));
  assert.equal(index.updateSessionFromRemovedBlocks(W1, chain(2)), 1);
  assert.deepEqual(lineage(index, 's1'), [chain(1)]);
  assert.equal(index.nodeCount, 1, 'the tail no frontier reaches any more is reclaimed');
  assert.equal(index.updateSessionFromRemovedBlocks(W1, chain(3)), 0);
  assert.deepEqual(lineage(index, 's1'), [chain(1)]);
});

test('removing a root drops the frontier; a session left with none goes, and so do its blocks', () => {
  const index = new SessionPrefixIndex();
  index.updateSessionFromStoredBlocks('s1', W1, null, chain(1, 2));
  assert.equal(index.updateSessionFromRemovedBlocks(W1, chain(1)), 1);
  assert.equal(index.sessionCount, 0);
  assert.equal(index.nodeCount, 0);
});

test('a clear drops one worker rank\'s frontiers and keeps the blocks other frontiers reach; a leaving worker drops every rank', () => {
  const index = new SessionPrefixIndex();
  for (const worker of [W1, W2, W1_RANK1]) index.updateSessionFromStoredBlocks('s1', worker, null, chain(1, 2));
  assert.equal(index.clearWorkerFrontiers(W2), 1);
  assert.deepEqual(lineage(index, 's1', W2), []);
  assert.deepEqual(lineage(index, 's1', W1), [chain(1, 2)]);
  assert.equal(index.nodeCount, 2);
  assert.equal(index.removeWorker(1n), 2, 'both ranks of worker 1');
  assert.equal(index.sessionCount, 0);
  assert.equal(index.nodeCount, 0);
});

test('past the cap the least recently active session goes with the blocks only it kept; a repeated match counts as activity, a removal does not', () => {
  const index = new SessionPrefixIndex(2);
  index.updateSessionFromStoredBlocks('a', W1, null, chain(1, 2));
  index.updateSessionFromStoredBlocks('b', W1, 2n, chain(3));
  index.updateSessionFromMatch('a', W1, 1n); // no advance, but a is now the most recent
  index.updateSessionFromRemovedBlocks(W1, chain(3)); // b moves back to 2: not b's own activity
  index.updateSessionFromStoredBlocks('c', W1, null, chain(7));
  assert.equal(index.sessionCount, 2);
  assert.equal(index.evictedSessions, 1);
  assert.deepEqual(index.getSessionFrontiers('b'), [], 'b was the least recently active');
  assert.deepEqual(lineage(index, 'a'), [chain(1, 2)], 'a keeps the trunk b shared');
  assert.deepEqual(lineage(index, 'c'), [chain(7)]);
  assert.equal(index.nodeCount, 3);
  assert.equal(new SessionPrefixIndex().maxSessions, DEFAULT_MAX_SESSIONS);
  assert.equal(DEFAULT_MAX_SESSIONS, 16_384);
  assert.equal(new SessionPrefixIndex(0).maxSessions, 1, 'a cap below one is raised to one');
});

test('KV events: a stored chain naming its session advances it, one naming none does not; removals and clears apply to all', () => {
  const index = new SessionPrefixIndex();
  const stored = (hashes: bigint[], parent: bigint | null = null) => ({
    event_id: 0,
    dp_rank: 0,
    data: { stored: { parent_hash: parent, blocks: hashes.map((h) => ({ block_hash: h, tokens_hash: h + 100n })) } },
  });
  index.applyEvent(1n, stored(chain(1, 2)), 's1');
  index.applyEvent(1n, stored(chain(3), 2n), undefined);
  assert.deepEqual(lineage(index, 's1'), [chain(1, 2)]);
  assert.equal(index.getNodeFromHash(3n), null, 'an unattributed chain adds nothing');
  index.applyEvent(1n, { event_id: 1, dp_rank: 0, data: { removed: { block_hashes: [2n] } } }, undefined);
  assert.deepEqual(lineage(index, 's1'), [chain(1)]);
  index.applyEvent(1n, { event_id: 2, dp_rank: 0, data: 'cleared' }, undefined);
  assert.equal(index.sessionCount, 0);
});
