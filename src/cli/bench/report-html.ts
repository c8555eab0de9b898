// A self-contained HTML report: uPlot and the results inlined into one file, so it opens in a
// browser with no network. Two plots: latency against throughput over the sweep, and the TTFT
// distribution of each run.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { BenchResults } from './results.js';

const require = createRequire(import.meta.url);

function asset(file: string): string {
  return readFileSync(require.resolve(`uplot/dist/${file}`), 'utf8');
}

/** JSON safe inside a <script> element. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
}

export function renderHtmlReport(results: BenchResults): string {
  const title = `dynamo-ts bench: ${results.target.api} ${results.target.model} at ${results.target.url}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${escapeHtml(title)}</title>
<style>${asset('uPlot.min.css')}</style>
<style>
body { font-family: system-ui, sans-serif; margin: 24px; color: #222; }
table { border-collapse: collapse; margin: 16px 0; font-size: 14px; }
th, td { border: 1px solid #ccc; padding: 4px 8px; text-align: right; }
th:first-child, td:first-child { text-align: left; }
.plot { margin: 24px 0; }
</style>
</head>
<body>
<h1>${escapeHtml(title)}</h1>
<p>Started ${escapeHtml(results.startedAt)}; ${results.target.stream ? 'streaming' : 'not streaming'}; workload ${escapeHtml(results.workload.kind)}.</p>
<table id="runs"></table>
<div class="plot" id="latency-vs-throughput"></div>
<div class="plot" id="ttft-distribution"></div>
<script>${asset('uPlot.iife.min.js')}</script>
<script id="bench-data" type="application/json">${scriptJson(results)}</script>
<script>
${CLIENT_SCRIPT}
</script>
</body>
</html>
`;
}

// Runs in the browser: the table, then the two plots; sets window.benchPlotsDrawn when done.
const CLIENT_SCRIPT = String.raw`
(function () {
  const results = JSON.parse(document.getElementById('bench-data').textContent);
  const runs = results.runs;
  const label = (load) => load.requestRate !== undefined ? 'rate ' + load.requestRate + '/s'
    : load.concurrency !== undefined ? 'concurrency ' + load.concurrency : 'trace';
  const num = (x) => x === undefined ? '' : Number(x).toFixed(2);
  const table = document.getElementById('runs');
  const head = ['run', 'ok', 'failed', 'req/s', 'output tok/s', 'TTFT p50', 'TTFT p99', 'ITL p50', 'ITL p99', 'e2e p50', 'e2e p99'];
  table.innerHTML = '<tr>' + head.map((h) => '<th>' + h + '</th>').join('') + '</tr>' + runs.map((r) => '<tr>' + [
    label(r.load), r.requests.completed, r.requests.failed, num(r.requestsPerS), num(r.outputTokensPerS),
    num(r.ttftMs && r.ttftMs.p50), num(r.ttftMs && r.ttftMs.p99), num(r.interTokenMs && r.interTokenMs.p50),
    num(r.interTokenMs && r.interTokenMs.p99), num(r.e2eMs && r.e2eMs.p50), num(r.e2eMs && r.e2eMs.p99),
  ].map((c) => '<td>' + c + '</td>').join('') + '</tr>').join('');

  const palette = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf'];
  const width = Math.min(900, document.body.clientWidth - 48);

  // Latency against output throughput, one point per run, sorted by throughput.
  const byThroughput = runs.slice().sort((a, b) => a.outputTokensPerS - b.outputTokensPerS);
  const pick = (key, p) => byThroughput.map((r) => r[key] ? r[key][p] : null);
  const lines = [['TTFT p50', 'ttftMs', 'p50'], ['TTFT p99', 'ttftMs', 'p99'], ['e2e p50', 'e2eMs', 'p50'], ['e2e p99', 'e2eMs', 'p99']];
  new uPlot({
    title: 'Latency vs output throughput', width, height: 360,
    scales: { x: { time: false } },
    axes: [{ label: 'output tokens/s' }, { label: 'ms' }],
    series: [{ label: 'tokens/s' }].concat(lines.map(([name], i) => ({ label: name, stroke: palette[i], width: 2, points: { show: true, size: 8 } }))),
  }, [byThroughput.map((r) => r.outputTokensPerS)].concat(lines.map(([, key, p]) => pick(key, p))), document.getElementById('latency-vs-throughput'));

  // TTFT histogram per run over shared bins (share of the run's requests per bin).
  const all = runs.flatMap((r) => r.samples.ttftMs);
  const bins = 40;
  const lo = all.length ? Math.min.apply(null, all) : 0;
  const hi = all.length ? Math.max.apply(null, all) : 1;
  const step = (hi - lo) / bins || 1;
  const centers = Array.from({ length: bins }, (_, i) => lo + step * (i + 0.5));
  const shares = runs.map((r) => {
    const counts = new Array(bins).fill(0);
    for (const v of r.samples.ttftMs) counts[Math.min(bins - 1, Math.floor((v - lo) / step))]++;
    return counts.map((c) => r.samples.ttftMs.length ? c / r.samples.ttftMs.length : 0);
  });
  new uPlot({
    title: 'TTFT distribution', width, height: 360,
    scales: { x: { time: false } },
    axes: [{ label: 'TTFT ms' }, { label: 'share of requests' }],
    series: [{ label: 'ms' }].concat(runs.map((r, i) => ({ label: label(r.load), stroke: palette[i % palette.length], width: 2 }))),
  }, [centers].concat(shares), document.getElementById('ttft-distribution'));
  window.benchPlotsDrawn = true;
})();
`;
