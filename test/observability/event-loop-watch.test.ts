import assert from 'node:assert/strict';
import { test } from 'node:test';
import { collectDefaultMetrics } from 'prom-client';
import { DEFAULT_COLLECTORS } from '../../src/observability/process-metrics.js';
import { EventLoopWatch } from '../../src/observability/event-loop-watch.js';
import { MetricsRegistry } from '../../src/observability/metrics.js';

async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`never: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function canaryCount(registry: MetricsRegistry): Promise<number> {
  const count = new RegExp(`^${registry.name('event_loop_delay_seconds')}_count (\\S+)$`, 'm').exec(await registry.render());
  return Number(count?.[1] ?? 0);
}

test('the canary sleeps while no request is in flight and wakes with the next one', async () => {
  const registry = new MetricsRegistry('idle_test');
  const watch = new EventLoopWatch(registry);
  try {
    assert.equal(watch.watching, false, 'asleep before any request');
    watch.started();
    assert.equal(watch.watching, true);
    await until(async () => (await canaryCount(registry)) > 0, 'a canary sample while a request is in flight');
    watch.ended();
    await until(() => !watch.watching, 'the canary asleep after the last request ended');
    const asleepAt = await canaryCount(registry);
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(await canaryCount(registry), asleepAt, 'no samples while asleep');
    watch.started();
    assert.equal(watch.watching, true, 'a new request wakes it');
  } finally {
    watch.stop();
  }
  assert.equal(watch.watching, false);
});

test('the lag gauges read 0 when the canary slept since the last scrape', async () => {
  const registry = new MetricsRegistry('idle_test');
  new EventLoopWatch(registry).stop();
  const text = await registry.render();
  for (const stat of ['min', 'max', 'mean', 'stddev', 'p50', 'p90', 'p99']) assert.match(text, new RegExp(`^nodejs_eventloop_lag_${stat}_seconds 0$`, 'm'), stat);
  assert.match(text, /^# TYPE nodejs_eventloop_lag_seconds gauge$/m);
});

test("prom-client's default collectors are all collected but its always-on event-loop one", () => {
  assert.deepEqual([...DEFAULT_COLLECTORS, 'eventLoopLag'].sort(), [...(collectDefaultMetrics as unknown as { metricsList: string[] }).metricsList].sort());
});
