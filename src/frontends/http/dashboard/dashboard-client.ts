// The dashboard's browser script. It is written here, type-checked with the rest, and served as
// its compiled source (`dashboardScript`): the function must use nothing but browser globals and
// the uPlot script the page loads before it.

import type UPlot from 'uplot';
import type { DashboardSnapshot, LatencySummary, WorkerRow } from '../../../observability/index.js';

declare const uPlot: typeof UPlot;

/** What the page exposes for inspection (and for the browser test): the charts by name. */
export interface DashboardWindow {
  charts: Record<string, UPlot>;
  snapshots: number;
}

function dashboardClient(): void {
  const POINTS = 300;
  const ms = (l: LatencySummary | null, read: (l: LatencySummary) => number): number | null => (l ? read(l) * 1000 : null);
  const percent = (v: number | null): number | null => (v === null ? null : v * 100);
  const finishedPerSecond = (s: DashboardSnapshot): number =>
    s.windowSeconds > 0 ? (s.requests.succeeded + s.requests.failed + s.requests.cancelled) / s.windowSeconds : 0;

  type Line = { label: string; color: string; read: (s: DashboardSnapshot) => number | null };
  const CHARTS: { name: string; title: string; unit: string; lines: Line[] }[] = [
    { name: 'requests', title: 'Requests per second', unit: 'req/s', lines: [
      { label: 'started', color: '#4e79a7', read: (s) => s.requests.perSecond },
      { label: 'finished', color: '#59a14f', read: finishedPerSecond },
    ] },
    { name: 'tokens', title: 'Output tokens per second', unit: 'tok/s', lines: [
      { label: 'tokens', color: '#f28e2b', read: (s) => s.outputTokensPerSecond },
    ] },
    { name: 'ttft', title: 'Time to first token', unit: 'ms', lines: [
      { label: 'p50', color: '#4e79a7', read: (s) => ms(s.ttft, (l) => l.p50) },
      { label: 'p95', color: '#e15759', read: (s) => ms(s.ttft, (l) => l.p95) },
    ] },
    { name: 'itl', title: 'Inter-token latency', unit: 'ms', lines: [
      { label: 'p50', color: '#4e79a7', read: (s) => ms(s.itl, (l) => l.p50) },
      { label: 'p95', color: '#e15759', read: (s) => ms(s.itl, (l) => l.p95) },
    ] },
    { name: 'kv', title: 'KV cache', unit: '%', lines: [
      { label: 'hit rate', color: '#76b7b2', read: (s) => percent(s.kvHitRate) },
      { label: 'usage', color: '#b07aa1', read: (s) => percent(s.kvUsage) },
    ] },
    { name: 'load', title: 'Requests in flight', unit: 'requests', lines: [
      { label: 'active', color: '#edc948', read: (s) => s.requests.active },
      { label: 'queued', color: '#9c755f', read: (s) => s.requests.queued },
    ] },
  ];

  // One line per worker, added as workers appear; a worker that left keeps its line until it scrolls away.
  const WORKER_CHARTS: { name: string; title: string; unit: string; read: (w: WorkerRow) => number | null }[] = [
    { name: 'workerLoad', title: 'In flight per worker', unit: 'requests', read: (w) => w.activeRequests },
    { name: 'workerKv', title: 'KV usage per worker', unit: '%', read: (w) => percent(w.kvUsage) },
  ];
  const PALETTE = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac'];

  const el = <K extends keyof HTMLElementTagNameMap>(tag: K, text?: string, cls?: string): HTMLElementTagNameMap[K] => {
    const e = document.createElement(tag);
    if (text !== undefined) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  };
  const byId = (id: string): HTMLElement => document.getElementById(id)!;
  const num = (v: number | null, digits = 1): string => (v === null ? '–' : v.toFixed(digits));
  const pct = (v: number | null): string => (v === null ? '–' : `${(v * 100).toFixed(v > 0 && v < 0.01 ? 2 : 1)}%`);

  const times: number[] = [];
  const exposed: DashboardWindow = { charts: {}, snapshots: 0 };
  (window as unknown as { dynamoDashboard: DashboardWindow }).dynamoDashboard = exposed;

  type Chart = { plot: UPlot; box: HTMLElement; lines: (number | null)[][] };
  const chartWidth = (box: HTMLElement): number => Math.max(240, box.clientWidth - 16);
  const lineOf = (label: string, color: string): UPlot.Series => ({ label, stroke: color, width: 2, spanGaps: false });
  const makeChart = (name: string, title: string, unit: string, lines: { label: string; color: string }[]): Chart => {
    const box = el('div', undefined, 'chart');
    box.append(el('h3', `${title} (${unit})`));
    byId('charts').append(box);
    const chart: Chart = { box, lines: lines.map(() => []), plot: undefined as unknown as UPlot };
    chart.plot = new uPlot(
      {
        width: chartWidth(box),
        height: 180,
        scales: { x: { time: true }, y: { range: (_u, min, max) => [Math.min(0, min ?? 0), Math.max(1, max ?? 1)] } },
        series: [{}, ...lines.map((l) => lineOf(l.label, l.color))],
        axes: [{}, { size: 56 }],
        // Values follow the cursor; the latest ones are in the tiles above.
        legend: { live: false },
      },
      [times, ...chart.lines] as UPlot.AlignedData,
      box,
    );
    exposed.charts[name] = chart.plot;
    return chart;
  };
  const draw = (c: Chart): void => c.plot.setData([times, ...c.lines] as UPlot.AlignedData);
  const fixed = CHARTS.map((spec) => ({ spec, chart: makeChart(spec.name, spec.title, spec.unit, spec.lines) }));
  const perWorker = WORKER_CHARTS.map((spec) => ({ spec, chart: makeChart(spec.name, spec.title, spec.unit, []) }));
  const charts = [...fixed, ...perWorker].map((c) => c.chart);
  const workerIds: string[] = [];
  window.addEventListener('resize', () => {
    for (const { plot, box } of charts) plot.setSize({ width: chartWidth(box), height: 180 });
  });

  /** A line per chart for a worker seen for the first time, empty before now. */
  const addWorker = (id: string): void => {
    const color = PALETTE[workerIds.length % PALETTE.length]!;
    workerIds.push(id);
    for (const { chart } of perWorker) {
      chart.lines.push(times.map(() => null));
      chart.plot.addSeries(lineOf(id, color));
      draw(chart);
    }
  };

  const clear = (): void => {
    times.length = 0;
    for (const { chart } of fixed) for (const line of chart.lines) line.length = 0;
    for (const { chart } of perWorker) {
      for (let i = chart.lines.length; i >= 1; i--) chart.plot.delSeries(i);
      chart.lines.length = 0;
    }
    workerIds.length = 0;
  };

  const sample = (s: DashboardSnapshot): void => {
    for (const w of s.workers) if (!workerIds.includes(w.workerId)) addWorker(w.workerId);
    times.push(s.time / 1000);
    for (const { spec, chart } of fixed) spec.lines.forEach((l, j) => chart.lines[j]!.push(l.read(s)));
    const workers = new Map(s.workers.map((w) => [w.workerId, w]));
    for (const { spec, chart } of perWorker) {
      workerIds.forEach((id, j) => {
        const w = workers.get(id);
        chart.lines[j]!.push(w ? spec.read(w) : null);
      });
    }
    if (times.length > POINTS) {
      times.shift();
      for (const c of charts) for (const line of c.lines) line.shift();
    }
  };

  const tiles = (s: DashboardSnapshot): [string, string][] => [
    ['Requests/s', num(s.requests.perSecond)],
    ['Tokens/s', num(s.outputTokensPerSecond, 0)],
    ['In flight', String(s.requests.active)],
    ['Queued', String(s.requests.queued)],
    ['TTFT p50', s.ttft ? `${num(s.ttft.p50 * 1000)} ms` : '–'],
    ['ITL p50', s.itl ? `${num(s.itl.p50 * 1000)} ms` : '–'],
    ['KV hit rate', pct(s.kvHitRate)],
    ['KV usage', pct(s.kvUsage)],
  ];

  const fillTable = (id: string, rows: (string | HTMLElement)[][]): void => {
    const body = byId(id).querySelector('tbody')!;
    body.replaceChildren(
      ...rows.map((cells) => {
        const tr = el('tr');
        for (const c of cells) {
          const td = el('td');
          td.append(c);
          tr.append(td);
        }
        return tr;
      }),
    );
  };

  const usageBar = (usage: number | null): HTMLElement => {
    const wrap = el('span', undefined, 'usage');
    const track = el('span', undefined, 'track');
    const bar = el('span', undefined, 'bar');
    bar.style.width = `${Math.round(Math.min(1, usage ?? 0) * 100)}%`;
    track.append(bar);
    wrap.append(track, el('span', pct(usage)));
    return wrap;
  };

  const show = (s: DashboardSnapshot, redraw: boolean): void => {
    sample(s);
    exposed.snapshots++;
    if (!redraw) return;
    charts.forEach(draw);
    byId('tiles').replaceChildren(
      ...tiles(s).map(([label, value]) => {
        const tile = el('div', undefined, 'tile');
        tile.append(el('div', value, 'value'), el('div', label, 'label'));
        return tile;
      }),
    );
    fillTable('models', s.models.map((m) => [
      m.model,
      m.ready ? 'ready' : 'no worker',
      m.downInstances > 0 ? `${m.instances} (${m.downInstances} down)` : String(m.instances),
      String(m.activeRequests),
      String(m.queuedRequests),
      String(m.contextLength),
      m.totalKvBlocks === null ? '–' : String(m.totalKvBlocks),
      pct(m.kvHitRate),
    ]));
    fillTable('workers', s.workers.map((w) => [
      w.workerId,
      w.models.join(', '),
      w.workerType,
      String(w.activeRequests),
      String(w.activePrefillTokens),
      w.activeBlocks === null ? '–' : `${w.activeBlocks} / ${w.totalBlocks ?? '–'}`,
      usageBar(w.kvUsage),
    ]));
    byId('updated').textContent = `updated ${new Date(s.time).toLocaleTimeString()}`;
  };

  const status = byId('status');
  const events = new EventSource(document.body.dataset.events!);
  events.addEventListener('open', () => {
    status.textContent = 'live';
    status.className = 'status live';
  });
  events.addEventListener('error', () => {
    status.textContent = 'reconnecting…';
    status.className = 'status down';
  });
  // A (re)connection starts from the server's history: the charts restart from it.
  events.addEventListener('history', (e) => {
    clear();
    const history = JSON.parse((e as MessageEvent<string>).data) as DashboardSnapshot[];
    history.forEach((s, i) => show(s, i === history.length - 1));
  });
  events.addEventListener('snapshot', (e) => show(JSON.parse((e as MessageEvent<string>).data) as DashboardSnapshot, true));
}

/** The served script: the function above, compiled, called once the page has loaded uPlot. */
export function dashboardScript(): string {
  return `(${dashboardClient.toString()})();\n`;
}
