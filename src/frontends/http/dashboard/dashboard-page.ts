// The dashboard page and its style sheet. Every script and style is a file of the dashboard's
// own path (no inline code, no CDN), so the page runs offline under a strict CSP.

const escapeAttr = (s: string): string => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/** The page served at `base`; its assets are under `base/`. */
export function dashboardHtml(base: string): string {
  const at = (file: string): string => escapeAttr(`${base}/${file}`);
  const head = (cells: string[]): string => `<thead><tr>${cells.map((c) => `<th>${c}</th>`).join('')}</tr></thead><tbody></tbody>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>dynamo-ts dashboard</title>
<link rel="stylesheet" href="${at('uPlot.min.css')}">
<link rel="stylesheet" href="${at('dashboard.css')}">
</head>
<body data-events="${at('events')}">
<header><h1>dynamo-ts</h1><span id="status" class="status">connecting…</span><span id="updated"></span></header>
<main>
<section id="tiles" class="tiles"></section>
<section id="charts" class="charts"></section>
<section><h2>Models</h2><table id="models">${head(['Model', 'State', 'Instances', 'In flight', 'Queued', 'Context', 'KV blocks', 'KV hit rate'])}</table></section>
<section><h2>Workers</h2><table id="workers">${head(['Worker', 'Models', 'Type', 'In flight', 'Prefill tokens', 'KV blocks', 'KV usage'])}</table></section>
</main>
<script src="${at('uPlot.iife.min.js')}"></script>
<script src="${at('dashboard.js')}"></script>
</body>
</html>
`;
}

export const DASHBOARD_CSS = `
:root { color-scheme: light dark; --bg: #fafafa; --fg: #1d1d1f; --muted: #6e6e73; --card: #fff; --line: #e3e3e8; --accent: #76b900; }
@media (prefers-color-scheme: dark) { :root { --bg: #16161a; --fg: #ececf1; --muted: #9a9aa2; --card: #1f1f24; --line: #33333a; } }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.4 system-ui, sans-serif; background: var(--bg); color: var(--fg); }
header { display: flex; align-items: baseline; gap: 1rem; padding: .75rem 1.25rem; border-bottom: 3px solid var(--accent); background: var(--card); }
h1 { font-size: 1.2rem; margin: 0; }
h2 { font-size: 1rem; margin: 1.25rem 0 .5rem; }
h3 { font-size: .85rem; font-weight: 600; margin: 0 0 .25rem; color: var(--muted); }
main { padding: 0 1.25rem 1.25rem; }
.status { font-size: .8rem; padding: .1rem .5rem; border-radius: 1rem; background: var(--line); }
.status.live { background: var(--accent); color: #000; }
.status.down { background: #e15759; color: #fff; }
#updated { color: var(--muted); font-size: .8rem; margin-left: auto; }
.tiles { display: grid; grid-template-columns: repeat(auto-fill, minmax(130px, 1fr)); gap: .75rem; margin-top: 1rem; }
.tile { background: var(--card); border: 1px solid var(--line); border-radius: 6px; padding: .6rem .8rem; }
.tile .value { font-size: 1.35rem; font-variant-numeric: tabular-nums; }
.tile .label { color: var(--muted); font-size: .8rem; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(420px, 1fr)); gap: .75rem; margin-top: 1rem; }
.chart { background: var(--card); border: 1px solid var(--line); border-radius: 6px; padding: .5rem; min-width: 0; }
table { width: 100%; border-collapse: collapse; background: var(--card); border: 1px solid var(--line); }
th, td { text-align: left; padding: .35rem .6rem; border-bottom: 1px solid var(--line); font-variant-numeric: tabular-nums; }
th { font-size: .8rem; color: var(--muted); font-weight: 600; }
.usage { display: inline-flex; align-items: center; gap: .4rem; }
.usage .track { display: inline-block; width: 80px; height: .6rem; background: var(--line); border-radius: 2px; overflow: hidden; }
.usage .bar { display: block; height: 100%; background: var(--accent); }
.u-legend { font-size: .8rem; }
`;
