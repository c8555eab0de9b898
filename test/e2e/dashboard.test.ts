// /dashboard end to end: the page in headless Chromium drawing live charts while the mocker serves
// streaming chats, the server-sent snapshots read over plain HTTP, the off switch and API keys.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { chromium } from 'playwright-core';
import type { DashboardSnapshot } from '../../src/observability/index.js';
import { serveInProcess } from '../support/in-process.js';
import { freePort, REPO_ROOT, startProcess } from '../support/processes.js';
import { sseEvents } from '../support/sse-events.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const MODEL = 'Qwen/Qwen3-0.6B';
const KEY = 'dashboard-test-key';
const SCREENSHOT = path.join(REPO_ROOT, 'test-artifacts', 'dashboard.png');
// Long enough to fill several KV blocks, so repeated prompts hit the cache the KV router predicts.
const SHARED_PREFIX = 'You are a careful assistant. '.repeat(60);

/** Reads `/dashboard/events` until `count` snapshots arrived, then hangs up. */
async function readSnapshots(url: string, count: number, headers: Record<string, string> = {}): Promise<{ history: DashboardSnapshot[]; snapshots: DashboardSnapshot[]; response: Response }> {
  const controller = new AbortController();
  const response = await fetch(url, { headers, signal: controller.signal });
  assert.equal(response.status, 200);
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    for (;;) {
      const frames = sseEvents(text.slice(0, text.lastIndexOf('\n\n') + 2));
      if (frames.filter((f) => f.event === 'snapshot').length >= count) {
        return {
          history: frames.find((f) => f.event === 'history')!.data as unknown as DashboardSnapshot[],
          snapshots: frames.filter((f) => f.event === 'snapshot').map((f) => f.data as unknown as DashboardSnapshot),
          response,
        };
      }
      const { value, done } = await reader.read();
      if (done) throw new Error(`stream ended after: ${text}`);
      text += decoder.decode(value, { stream: true });
    }
  } finally {
    controller.abort();
  }
}

/** `dynamo-ts serve` with an API key, ready once its model is listed to a client presenting the key. */
async function startGuardedServe(args: string[]) {
  const port = await freePort();
  const proc = startProcess(['serve', '--http-host', '127.0.0.1', '--http-port', String(port), '--api-key', KEY, ...args]);
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (proc.proc.exitCode !== null) throw new Error(`serve exited early:\n${proc.output()}`);
    const models = await fetch(`${baseUrl}/v1/models`, { headers: { authorization: `Bearer ${KEY}` } }).then((r) => (r.ok ? r.text() : ''), () => '');
    if (models.includes(MODEL)) return { proc, baseUrl };
    if (Date.now() > deadline) {
      await proc.stop();
      throw new Error(`model ${MODEL} not ready:\n${proc.output()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** `total` streaming chats sharing a long prefix, `concurrency` at a time; resolves when all have streamed to the end. */
async function chatLoad(client: OpenAI, total: number, concurrency: number, maxTokens = 24): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < total) {
      const i = next++;
      const stream = await client.chat.completions.create({
        model: MODEL,
        stream: true,
        max_tokens: maxTokens,
        messages: [
          { role: 'system', content: SHARED_PREFIX },
          { role: 'user', content: `Question ${i}: what is ${i} plus ${i % 7}?` },
        ],
      });
      for await (const chunk of stream) void chunk;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
}

describe('/dashboard in headless Chromium under load', () => {
  test('draws every chart and lists the model and its workers; the browser signs in with the key', { timeout: 180_000 }, async (t) => {
    if (!existsSync(CHROMIUM)) {
      t.skip(`Chromium not found at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);
      return;
    }
    const server = await startGuardedServe(['--router-mode', 'kv', '--num-workers', '2']);
    const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
    try {
      const auth = { authorization: `Bearer ${KEY}` };
      const [first] = (await readSnapshots(`${server.baseUrl}/dashboard/events`, 1, auth)).snapshots;
      const workerIds = first!.workers.map((w) => w.workerId);
      assert.equal(workerIds.length, 2, 'two mocker workers');

      const context = await browser.newContext({ viewport: { width: 1400, height: 1100 }, httpCredentials: { username: 'operator', password: KEY } });
      const page = await context.newPage();
      const outside: string[] = [];
      page.on('request', (req) => {
        if (!req.url().startsWith(server.baseUrl)) outside.push(req.url());
      });
      const pageErrors: string[] = [];
      page.on('pageerror', (err) => pageErrors.push(err.message));
      const response = await page.goto(`${server.baseUrl}/dashboard`);
      assert.equal(response?.status(), 200);
      await page.waitForFunction(() => document.getElementById('status')?.textContent === 'live', undefined, { timeout: 60_000 });

      // A few dozen streaming chats; every chart must draw points above zero from them.
      const client = new OpenAI({ baseURL: `${server.baseUrl}/v1`, apiKey: KEY });
      await chatLoad(client, 48, 8, 64);
      const drawn = () =>
        page.evaluate(() => {
          const { charts } = (window as unknown as { dynamoDashboard: { charts: Record<string, { data: (number | null)[][] }> } }).dynamoDashboard;
          // Per chart: how many points of its first line are above zero.
          return Object.fromEntries(Object.entries(charts).map(([name, chart]) => [name, chart.data[1]!.filter((v) => v !== null && v > 0).length]));
        });
      // The load's last window reaches the page a second or so after it ends.
      await page.waitForFunction(
        () => {
          const { charts } = (window as unknown as { dynamoDashboard: { charts: Record<string, { data: (number | null)[][] }> } }).dynamoDashboard;
          return Object.values(charts).every((chart) => chart.data[1]!.filter((v) => v !== null && v > 0).length >= 2);
        },
        undefined,
        { timeout: 60_000 },
      );
      const counts = await drawn();
      assert.deepEqual(Object.keys(counts).sort(), ['itl', 'kv', 'load', 'requests', 'tokens', 'ttft', 'workerKv', 'workerLoad']);
      for (const [name, n] of Object.entries(counts)) assert.ok(n >= 2, `chart ${name} drew data: ${JSON.stringify(counts)}`);

      // The canvases are painted, not just fed.
      const painted = await page.evaluate(() =>
        [...document.querySelectorAll('.chart canvas')].map((c) => {
          const canvas = c as HTMLCanvasElement;
          const pixels = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
          let opaque = 0;
          for (let i = 3; i < pixels.length; i += 4) if (pixels[i]! > 0) opaque++;
          return opaque;
        }),
      );
      assert.equal(painted.length, 8);
      // The per-worker charts have one line per worker, named by its id.
      const workerLines = await page.evaluate(() => {
        const { charts } = (window as unknown as { dynamoDashboard: { charts: Record<string, { series: { label?: string }[] }> } }).dynamoDashboard;
        return [charts.workerLoad!, charts.workerKv!].map((c) => c.series.slice(1).map((s) => String(s.label)).sort());
      });
      for (const lines of workerLines) assert.deepEqual(lines, [...workerIds].sort());
      for (const n of painted) assert.ok(n > 0, `every canvas painted: ${painted.join(', ')}`);

      const models = await page.locator('#models tbody').textContent();
      assert.ok(models?.includes(MODEL), `models table: ${models}`);
      const workers = await page.locator('#workers tbody').textContent();
      for (const id of workerIds) assert.ok(workers?.includes(id), `worker ${id} in: ${workers}`);
      assert.match((await page.locator('#tiles').textContent()) ?? '', /KV hit rate/);

      mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
      await page.screenshot({ path: SCREENSHOT, fullPage: true });
      t.diagnostic(`dashboard screenshot: ${SCREENSHOT}`);
      console.log(`dashboard screenshot: ${SCREENSHOT}`);

      assert.deepEqual(outside, [], 'the page loads nothing from outside the server');
      assert.deepEqual(pageErrors, []);
      await context.close();
    } finally {
      await browser.close();
      await server.proc.stop();
    }
  });
});

describe('/dashboard/events over plain HTTP', () => {
  let ctx: Awaited<ReturnType<typeof serveInProcess>>;
  before(async () => {
    ctx = await serveInProcess(['--router-mode', 'kv', '--speedup-ratio', '1000']);
  });
  after(async () => ctx.service.stop());

  test('history first, then one snapshot per interval with the request window and the cluster state', async () => {
    const client = new OpenAI({ baseURL: `${ctx.baseUrl}/v1`, apiKey: 'unused' });
    const reading = readSnapshots(`${ctx.baseUrl}/dashboard/events`, 3);
    await chatLoad(client, 4, 4);
    const { history, snapshots, response } = await reading;
    assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
    assert.equal(response.headers.get('cache-control'), 'no-cache');
    assert.ok(Array.isArray(history));
    for (const s of snapshots) {
      assert.deepEqual(Object.keys(s).sort(), ['itl', 'kvHitRate', 'kvUsage', 'models', 'outputTokensPerSecond', 'requests', 'time', 'ttft', 'windowSeconds', 'workers']);
      assert.deepEqual(Object.keys(s.requests).sort(), ['active', 'cancelled', 'failed', 'perSecond', 'queued', 'started', 'succeeded']);
      assert.ok(s.windowSeconds > 0);
      assert.ok(Math.abs(s.time - Date.now()) < 600_000);
      assert.deepEqual(s.models.map((m) => m.model), [MODEL]);
      assert.deepEqual(Object.keys(s.models[0]!).sort(), ['activeRequests', 'contextLength', 'downInstances', 'instances', 'kvCacheBlockSize', 'kvHitRate', 'model', 'queuedRequests', 'ready', 'totalKvBlocks']);
      assert.equal(s.models[0]!.ready, true);
      assert.equal(s.workers.length, 1);
      assert.deepEqual(Object.keys(s.workers[0]!).sort(), ['activeBlocks', 'activePrefillTokens', 'activeRequests', 'kvUsage', 'models', 'totalBlocks', 'workerId', 'workerType']);
      assert.deepEqual(s.workers[0]!.models, [MODEL]);
    }
    const total = snapshots.reduce((n, s) => n + s.requests.started, 0);
    assert.ok(total <= 4);
    const withLatency = snapshots.find((s) => s.ttft !== null);
    if (withLatency) assert.deepEqual(Object.keys(withLatency.ttft!).sort(), ['count', 'max', 'mean', 'p50', 'p95']);
  });

  test('the page and its assets come from the server, uPlot from the installed package', async () => {
    const page = await fetch(`${ctx.baseUrl}/dashboard`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(page.headers.get('content-security-policy') ?? '', /script-src 'self'/);
    const html = await page.text();
    assert.doesNotMatch(html, /(?:src|href)="(?:https?:)?\/\//, 'no CDN');
    for (const asset of ['uPlot.iife.min.js', 'uPlot.min.css', 'dashboard.js', 'dashboard.css']) {
      assert.ok(html.includes(`/dashboard/${asset}`), asset);
      const res = await fetch(`${ctx.baseUrl}/dashboard/${asset}`);
      assert.equal(res.status, 200, asset);
      const etag = res.headers.get('etag')!;
      assert.ok((await res.text()).length > 100, asset);
      assert.equal((await fetch(`${ctx.baseUrl}/dashboard/${asset}`, { headers: { 'if-none-match': etag } })).status, 304, asset);
    }
    const slash = await fetch(`${ctx.baseUrl}/dashboard/`, { redirect: 'manual' });
    assert.equal(slash.status, 308);
    assert.equal(slash.headers.get('location'), '/dashboard');
    const openapi = (await (await fetch(`${ctx.baseUrl}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    assert.equal(Object.keys(openapi.paths).some((p) => p.startsWith('/dashboard')), false, 'machinery, not API');
  });

  test('DYN_HTTP_SVC_DASHBOARD_PATH moves the page, its files and its events together', async () => {
    const local = await serveInProcess([], { DYN_HTTP_SVC_DASHBOARD_PATH: '/ops/live' });
    try {
      const html = await (await fetch(`${local.baseUrl}/ops/live`)).text();
      assert.match(html, /data-events="\/ops\/live\/events"/);
      assert.match(html, /src="\/ops\/live\/dashboard\.js"/);
      assert.equal((await fetch(`${local.baseUrl}/ops/live/uPlot.iife.min.js`)).status, 200);
      assert.equal((await readSnapshots(`${local.baseUrl}/ops/live/events`, 1)).snapshots.length, 1);
      assert.equal((await fetch(`${local.baseUrl}/dashboard`)).status, 404);
    } finally {
      await local.service.stop();
    }
  });

  test('stopping the server ends an open dashboard stream', async () => {
    const local = await serveInProcess();
    const response = await fetch(`${local.baseUrl}/dashboard/events`);
    const reader = response.body!.getReader();
    await reader.read();
    await local.service.stop();
    for (;;) if ((await reader.read()).done) break;
  });
});

describe('/dashboard switched off or guarded', () => {
  test('--no-dashboard and DYN_HTTP_DASHBOARD=false: every dashboard route answers 404', async () => {
    for (const [args, env] of [[['--no-dashboard'], {}], [[], { DYN_HTTP_DASHBOARD: 'false' }]] as const) {
      const ctx = await serveInProcess([...args], { ...env });
      try {
        for (const p of ['/dashboard', '/dashboard/events', '/dashboard/uPlot.iife.min.js']) {
          const res = await fetch(`${ctx.baseUrl}${p}`);
          assert.equal(res.status, 404, `${args.join(' ')} ${JSON.stringify(env)} ${p}`);
          await res.body?.cancel();
        }
      } finally {
        await ctx.service.stop();
      }
    }
  });

  test('with API keys: 401 with a Basic challenge without one; a bearer key or the key as Basic password opens it', async () => {
    const ctx = await serveInProcess(['--api-key', KEY]);
    try {
      for (const p of ['/dashboard', '/dashboard/events', '/dashboard/dashboard.js']) {
        const res = await fetch(`${ctx.baseUrl}${p}`);
        assert.equal(res.status, 401, p);
        assert.match(res.headers.get('www-authenticate') ?? '', /^Basic realm="dynamo-ts dashboard"/);
        assert.match(((await res.json()) as { message: string }).message, /Missing API key/);
      }
      const basic = (password: string) => ({ authorization: `Basic ${Buffer.from(`anyone:${password}`).toString('base64')}` });
      assert.equal((await fetch(`${ctx.baseUrl}/dashboard`, { headers: basic('wrong') })).status, 401);
      assert.equal((await fetch(`${ctx.baseUrl}/dashboard`, { headers: basic(KEY) })).status, 200);
      assert.equal((await fetch(`${ctx.baseUrl}/dashboard`, { headers: { authorization: `Bearer ${KEY}` } })).status, 200);
      const { snapshots } = await readSnapshots(`${ctx.baseUrl}/dashboard/events`, 1, basic(KEY));
      assert.equal(snapshots.length, 1);
      // Basic is the dashboard's alone: the API keeps to bearer keys.
      const api = await fetch(`${ctx.baseUrl}/v1/models`, { headers: basic(KEY) });
      assert.equal(api.status, 401);
      assert.equal(api.headers.get('www-authenticate'), 'Bearer');
    } finally {
      await ctx.service.stop();
    }
  });
});
