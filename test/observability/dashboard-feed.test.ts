import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DashboardFeed, type DashboardSnapshot, type DashboardWatcher, type ModelStats } from '../../src/observability/index.js';
import { HitRateWindows, workerRows } from '../../src/observability/dashboard-snapshot.js';
import { LatencyWindow } from '../../src/observability/latency-window.js';
import { requestChannels, type RequestInfo, type RequestScope } from '../../src/protocols/index.js';
import { eventually } from '../support/in-process.js';

const tally = (count: number, sum: number) => ({ bounds: [1], counts: [count], sum, count });

function model(name: string, over: Partial<ModelStats> = {}): ModelStats {
  return {
    model: name,
    contextLength: 4096,
    kvCacheBlockSize: 16,
    migrationLimit: 0,
    totalKvBlocks: 100,
    instances: 1,
    downInstances: 0,
    queuedRequests: 0,
    endpoint: { namespace: 'dynamo', component: 'backend', endpoint: 'generate' },
    workers: [{ workerId: '7', dpRank: 0, workerType: 'decode', activeDecodeBlocks: 25, kvTotalBlocks: 100, activePrefillTokens: 3, inflightRequests: 2 }],
    ...over,
  };
}

/** A watcher that keeps what it was sent. */
function recorder() {
  const events: { event: string; data: unknown }[] = [];
  let ended = false;
  const watcher: DashboardWatcher = {
    send: (event, json) => events.push({ event, data: JSON.parse(json) }),
    end: () => (ended = true),
  };
  return {
    watcher,
    events,
    ended: () => ended,
    snapshots: () => events.filter((e) => e.event === 'snapshot').map((e) => e.data as DashboardSnapshot),
  };
}

function publishRequest(scope: RequestScope, ttft: number, intervals: number[]): void {
  const request: RequestInfo = { scope, id: 'r', model: 'm', endpoint: 'chat_completions', requestType: 'stream', startedAt: performance.now() };
  requestChannels.start.publish({ request });
  requestChannels.firstToken.publish({ request, ttft });
  requestChannels.token.publish({ request, tokens: 1, interval: null });
  for (const interval of intervals) requestChannels.token.publish({ request, tokens: 2, interval });
  requestChannels.end.publish({ request, usage: undefined, duration: 1 });
}

describe('LatencyWindow', () => {
  test('quantiles within the bucket width, then a fresh window', () => {
    const w = new LatencyWindow();
    for (let i = 1; i <= 100; i++) w.observe(i / 1000);
    const s = w.take()!;
    assert.equal(s.count, 100);
    assert.ok(Math.abs(s.mean - 0.0505) < 1e-9);
    assert.ok(Math.abs(s.p50 - 0.05) / 0.05 < 0.05, `p50 ${s.p50}`);
    assert.ok(Math.abs(s.p95 - 0.095) / 0.095 < 0.05, `p95 ${s.p95}`);
    assert.equal(s.max, 0.1);
    assert.equal(w.take(), null);
  });

  test('a single sample and out-of-range samples stay within what was seen', () => {
    const w = new LatencyWindow();
    w.observe(0);
    w.observe(1e6);
    const s = w.take()!;
    assert.equal(s.max, 1e6);
    assert.ok(s.p95 <= 1e6);
    const one = new LatencyWindow();
    one.observe(0.2);
    assert.ok(one.take()!.p50 <= 0.2);
  });
});

describe('dashboard snapshot parts', () => {
  test('a worker serving two models is one row: router counts add up, its KV report is taken once', () => {
    const rows = workerRows([model('a'), model('b')]);
    assert.equal(rows.length, 1);
    assert.deepEqual(rows[0], {
      workerId: '7', workerType: 'decode', models: ['a', 'b'], activeRequests: 4, activePrefillTokens: 6, activeBlocks: 25, totalBlocks: 100, kvUsage: 0.25,
    });
  });

  test('hit rates are per window: the decisions since the previous snapshot', () => {
    const windows = new HitRateWindows();
    assert.equal(windows.take([model('a', { decisions: { overlapBlocks: tally(0, 0), kvHitRate: tally(2, 1) } })]).overall, null);
    const next = windows.take([model('a', { decisions: { overlapBlocks: tally(0, 0), kvHitRate: tally(6, 4) } })]);
    assert.equal(next.overall, 0.75);
    assert.equal(next.perModel.get('a'), 0.75);
    assert.equal(windows.take([model('a', { decisions: { overlapBlocks: tally(0, 0), kvHitRate: tally(6, 4) } })]).perModel.get('a'), null);
  });
});

describe('DashboardFeed', () => {
  test('idle until watched: no snapshots, no reads, no counting; counts its scope only once watched', async () => {
    const scope: RequestScope = { name: 'dash' };
    let reads = 0;
    const feed = new DashboardFeed(() => (reads++, [model('m')]), scope, { intervalMs: 20 });
    publishRequest(scope, 0.1, [0.01]);
    assert.equal(feed.active, false);
    assert.equal(reads, 0);

    const first = recorder();
    const unwatch = feed.watch(first.watcher);
    assert.equal(feed.active, true);
    assert.deepEqual(first.events[0], { event: 'history', data: [] });
    publishRequest(scope, 0.2, [0.01, 0.03]);
    publishRequest({ name: 'other' }, 9, [9]);
    await eventually(() => first.snapshots().length >= 1, 60_000, 'a snapshot');
    const s = first.snapshots()[0]!;
    assert.equal(s.requests.started, 1);
    assert.equal(s.requests.succeeded, 1);
    assert.ok(s.requests.perSecond > 0);
    assert.ok(s.outputTokensPerSecond > 0);
    assert.equal(s.ttft?.count, 1);
    assert.equal(s.ttft?.max, 0.2);
    assert.equal(s.itl?.count, 2);
    assert.equal(s.itl?.max, 0.03);
    assert.equal(s.requests.active, 2);
    assert.equal(s.kvUsage, 0.25);
    assert.deepEqual(s.models.map((m) => m.model), ['m']);
    assert.deepEqual(s.workers.map((w) => w.workerId), ['7']);

    // A second watcher joins with the history so far.
    const second = recorder();
    const unwatchSecond = feed.watch(second.watcher);
    const history = second.events[0]!;
    assert.equal(history.event, 'history');
    assert.ok((history.data as DashboardSnapshot[]).length >= 1);

    unwatch();
    assert.equal(feed.active, true, 'still watched by the second');
    unwatchSecond();
    assert.equal(feed.active, false);
    const readsWhenStopped = reads;
    const seen = second.events.length;
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(reads, readsWhenStopped, 'no reads after the last watcher left');
    assert.equal(second.events.length, seen);

    // Watching again starts from an empty history.
    const third = recorder();
    const unwatchThird = feed.watch(third.watcher);
    assert.deepEqual(third.events[0], { event: 'history', data: [] });
    unwatchThird();
  });

  test('close ends every watcher and stops', () => {
    const feed = new DashboardFeed(() => [], { name: 'close' }, { intervalMs: 20 });
    const a = recorder();
    const b = recorder();
    feed.watch(a.watcher);
    feed.watch(b.watcher);
    feed.close();
    assert.equal(a.ended(), true);
    assert.equal(b.ended(), true);
    assert.equal(feed.active, false);
    assert.equal(feed.watcherCount, 0);
  });

  test('a failing read is reported and skipped, not thrown from the timer', async () => {
    const errors: unknown[] = [];
    let fail = false;
    const feed = new DashboardFeed(() => {
      if (fail) throw new Error('boom');
      return [];
    }, { name: 'fail' }, { intervalMs: 20, onError: (err) => errors.push(err) });
    const w = recorder();
    const unwatch = feed.watch(w.watcher);
    fail = true;
    await eventually(() => errors.length >= 1, 60_000, 'an error report');
    assert.equal(w.snapshots().length, 0);
    unwatch();
  });
});
