// The chaos drill's accounting, without processes: what counts as failed, lost, repeated, or cut
// with its own frontend process; which fault a failure is charged to; the SSE reading and the
// connections a process holds, from a /proc/net/tcp table.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { peerPortsInTable } from '../../bench/support/proc-sockets.js';
import {
  SseEvents,
  applyChatEvent,
  compareTokens,
  faultAt,
  judge,
  summarize,
  summaryLine,
  type FrontendKill,
  type StreamOutcome,
} from '../../bench/support/stream-accounting.js';

const want = ['a', 'b', 'c', 'd'];

function outcome(over: Partial<StreamOutcome> = {}): StreamOutcome {
  return { key: 1, startedAt: 1000, endedAt: 4000, status: 200, deltas: [...want], done: true, maxWaitMs: 20, localPort: 50000, ...over };
}

const kill: FrontendKill = { at: 2000, pid: 7, ports: new Set([50000]) };

test('a stream equal to its undisturbed answer is ok, even cut into other deltas', () => {
  assert.deepEqual(judge(outcome(), want, []), { verdict: 'ok', lostTokens: 0, duplicatedTokens: 0 });
  assert.equal(judge(outcome({ deltas: ['ab', 'cd'] }), want, []).verdict, 'ok');
});

test('missing and repeated tokens are told apart and counted', () => {
  assert.deepEqual(compareTokens(['a', 'b', 'd'], want), { lost: 2, duplicated: 1 });
  assert.deepEqual(judge(outcome({ deltas: ['a', 'b', 'c'] }), want, []), { verdict: 'lost', lostTokens: 1, duplicatedTokens: 0 });
  assert.deepEqual(judge(outcome({ deltas: ['a', 'b', 'b', 'c', 'd'] }), want, []), { verdict: 'lost', lostTokens: 2, duplicatedTokens: 3 });
  assert.deepEqual(judge(outcome({ deltas: [...want, 'd'] }), want, []), { verdict: 'duplicated', lostTokens: 0, duplicatedTokens: 1 });
});

test('an error event, a status, a cut connection or a missing [DONE] is a failure with its reason', () => {
  assert.deepEqual(judge(outcome({ errorEvent: 'worker lost' }), want, []), { verdict: 'failed', reason: 'error event: worker lost', lostTokens: 0, duplicatedTokens: 0 });
  assert.equal(judge(outcome({ status: 503, done: false, errorEvent: 'busy' }), want, []).reason, 'HTTP 503: busy');
  assert.equal(judge(outcome({ done: false, transportError: 'ECONNRESET' }), want, []).reason, 'connection: ECONNRESET');
  assert.equal(judge(outcome({ done: false }), want, []).reason, 'ended without [DONE]');
  assert.equal(judge(outcome(), undefined, []).verdict, 'failed');
});

test('a stream on a killed frontend process\'s own connection is cut, with the time from the kill to its error', () => {
  const cut = judge(outcome({ done: false, transportError: 'ECONNRESET', endedAt: 2040 }), want, [kill]);
  assert.deepEqual(cut, { verdict: 'cut_own_frontend', reason: 'connection: ECONNRESET', lostTokens: 0, duplicatedTokens: 0, cutAfterMs: 40 });
  // Another process's connection cut at the same time is a failure.
  assert.equal(judge(outcome({ done: false, transportError: 'ECONNRESET', endedAt: 2040, localPort: 50001 }), want, [kill]).verdict, 'failed');
  // An error event is the server's answer, not a cut connection.
  assert.equal(judge(outcome({ errorEvent: 'x', endedAt: 2040 }), want, [kill]).verdict, 'failed');
  // A connection being handed to the process as it died: reset before any answer, just after the kill.
  const handoff = outcome({ status: undefined, done: false, deltas: [], transportError: 'ECONNRESET', startedAt: 2010, endedAt: 2030, localPort: 50002 });
  assert.equal(judge(handoff, want, [kill]).verdict, 'cut_own_frontend');
  assert.equal(judge({ ...handoff, startedAt: 9000, endedAt: 9010 }, want, [kill]).verdict, 'failed');
});

test('a failure is charged to the fault last dealt, active or healed', () => {
  const faults = [
    { name: 'worker-kill', start: 1000, end: 1100 },
    { name: 'etcd-restart', start: 5000 },
  ];
  assert.equal(faultAt(faults, 500), 'none (before the first fault)');
  assert.equal(faultAt(faults, 1050), 'worker-kill (active, +0.1 s)');
  assert.equal(faultAt(faults, 3100), 'worker-kill (healed 2.0 s before)');
  assert.equal(faultAt(faults, 6500), 'etcd-restart (active, +1.5 s)');
});

test('the summary counts each stream once and keeps cut streams out of the longest wait', () => {
  const outcomes = [outcome(), outcome({ deltas: ['a'] }), outcome({ errorEvent: 'x', maxWaitMs: 900 }), outcome({ done: false, transportError: 'EPIPE', endedAt: 2070, maxWaitMs: 5000 })];
  const s = summarize(outcomes, outcomes.map((o) => judge(o, want, [kill])));
  assert.deepEqual(s, { sent: 4, completed: 2, failed: 1, cutOwnFrontend: 1, lost: 1, duplicated: 0, lostTokens: 3, duplicatedTokens: 0, maxWaitMs: 900, maxCutErrorMs: 70 });
  assert.equal(
    summaryLine(s, { minutes: 1 }),
    'minutes=1 sent=4 completed=2 failed=1 cut_own_frontend=1 lost=1 duplicated=0 lost_tokens=3 duplicated_tokens=0 max_wait_ms=900 max_cut_error_ms=70',
  );
});

test('SSE events are read across chunk boundaries and applied to the outcome', () => {
  const sse = new SseEvents();
  const o = outcome({ deltas: [], done: false });
  for (const data of [...sse.push('data: {"choices":[{"delta":{"content":"a"}}]}\n\ndata: {"cho'), ...sse.push('ices":[{"delta":{"content":"b"}}]}\n\n'), ...sse.push('data: {"error":{"message":"boom"}}\n\ndata: [DONE]\n\n')]) {
    applyChatEvent(o, data);
  }
  assert.deepEqual(o.deltas, ['a', 'b']);
  assert.equal(o.errorEvent, 'boom');
  assert.equal(o.done, true);
});

test('the client ports of a process\'s connections to a port, from the kernel\'s TCP table', () => {
  const table = [
    '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode',
    '   0: 0100007F:1F90 0100007F:C350 01 00000000:00000000 00:00000000 00000000  1000        0 111 1 0 20 4 30 10 -1',
    '   1: 0100007F:1F90 0100007F:C351 01 00000000:00000000 00:00000000 00000000  1000        0 222 1 0 20 4 30 10 -1',
    '   2: 0100007F:1F91 0100007F:C352 01 00000000:00000000 00:00000000 00000000  1000        0 333 1 0 20 4 30 10 -1',
    '   3: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 444 1 0 20 4 30 10 -1',
  ].join('\n');
  assert.deepEqual([...peerPortsInTable(table, new Set(['111', '333']), 8080)], [50000]);
  assert.deepEqual([...peerPortsInTable(table, new Set(['111', '222', '444']), 8080)].sort(), [50000, 50001]);
});
