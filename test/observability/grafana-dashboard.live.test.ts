// deploy/grafana-dashboard.json is built on the names /metrics exposes: every metric an expression
// reads must be a family of a running frontend (HTTP and KServe gRPC, KV router).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { serveInProcess } from '../support/in-process.js';
import { freePort } from '../support/processes.js';
import { families, scrape } from '../support/prometheus-text.js';

const DASHBOARD = new URL('../../../deploy/grafana-dashboard.json', import.meta.url);

/** PromQL words that are not metric names. */
const PROMQL_WORDS = new Set([
  'sum', 'avg', 'min', 'max', 'count', 'rate', 'irate', 'increase', 'histogram_quantile', 'by', 'without', 'on', 'ignoring',
  'group_left', 'group_right', 'and', 'or', 'unless', 'label_values', 'topk', 'bottomk', 'clamp_min', 'clamp_max',
]);

interface Panel {
  type: string;
  title: string;
  targets?: { expr: string }[];
}

/** The metric names one expression reads: label matchers, groupings, ranges and variables removed. */
export function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/label_values\(([^,]+),\s*\w+\)/g, '$1')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\b(by|without|on|ignoring)\s*\([^)]*\)/g, '')
    .replace(/\$\w+/g, '');
  return [...bare.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*/g)].map((m) => m[0]).filter((w) => !PROMQL_WORDS.has(w));
}

test('the dashboard parses and every expression reads metrics a running frontend exposes', async () => {
  const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { panels: Panel[]; templating: { list: { query: unknown }[] } };
  const exprs = dashboard.panels.flatMap((p) => p.targets ?? []).map((t) => t.expr);
  const variableQueries = dashboard.templating.list.map((v) => v.query).filter((q): q is { query: string } => typeof q === 'object' && q !== null);
  exprs.push(...variableQueries.map((q) => q.query));
  assert.ok(exprs.length >= 30, 'the dashboard has its panels');
  for (const p of dashboard.panels.filter((p) => p.type !== 'row')) assert.ok(p.targets?.length, `panel "${p.title}" has a query`);

  const ctx = await serveInProcess(['--router-mode', 'kv', '--grpc-port', String(await freePort())]);
  try {
    const declared = families(await scrape(ctx.baseUrl));
    const missing = new Set<string>();
    for (const expr of exprs) {
      const names = metricNames(expr);
      assert.ok(names.length > 0, `no metric in ${expr}`);
      for (const name of names) {
        const family = declared.has(name) ? name : name.replace(/_(bucket|sum|count)$/, '');
        if (!declared.has(family)) missing.add(name);
      }
    }
    assert.deepEqual([...missing], [], 'every dashboard metric is on /metrics');
  } finally {
    await ctx.service.stop();
  }
});

test('metricNames reads names, not labels, functions or variables', () => {
  assert.deepEqual(
    metricNames('histogram_quantile(0.95, sum by (le, model) (rate(a_seconds_bucket{model=~"$model"}[$__rate_interval]))) / b_total'),
    ['a_seconds_bucket', 'b_total'],
  );
  assert.deepEqual(metricNames('label_values(x_ready, model)'), ['x_ready']);
});
