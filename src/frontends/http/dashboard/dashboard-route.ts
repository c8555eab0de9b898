// `/dashboard`: the page, its assets (uPlot read from the installed package once, at startup) and
// `/dashboard/events`, the server-sent snapshots of a DashboardFeed. The routes are machinery, not
// API: they stay out of /openapi.json. API keys guard them like any route (access-hook.ts).

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { FastifyInstance } from 'fastify';
import type { DashboardFeed, DashboardWatcher } from '../../../observability/index.js';
import { dashboardScript } from './dashboard-client.js';
import { DASHBOARD_CSS, dashboardHtml } from './dashboard-page.js';
import type { HttpRoute } from '../http-route.js';
import { HIDDEN } from '../openapi/index.js';
import { SseWriter } from '../sse/index.js';

/** A watcher this far behind (a stalled tab or proxy) is cut off rather than buffered for. */
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;

/** Scripts only from the dashboard's own path; uPlot sizes its elements with inline styles. */
const CSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'";

interface Asset {
  readonly type: string;
  readonly body: string | Buffer;
  readonly etag: string;
}

const asset = (type: string, body: string | Buffer): Asset => ({ type, body, etag: `"${createHash('sha1').update(body).digest('base64url')}"` });

let uplotFiles: { js: Buffer; css: Buffer } | undefined;

/** uPlot's browser build and style sheet, from the package the server was installed with. */
function uplot(): { js: Buffer; css: Buffer } {
  const require = createRequire(import.meta.url);
  const read = (file: string): Buffer => {
    try {
      return readFileSync(require.resolve(`uplot/dist/${file}`));
    } catch (err) {
      throw new Error(`the dashboard needs ${file} of the 'uplot' package, which is not installed (reinstall dynamo-ts, or turn the dashboard off with --no-dashboard): ${(err as Error).message}`);
    }
  };
  uplotFiles ??= { js: read('uPlot.iife.min.js'), css: read('uPlot.min.css') };
  return uplotFiles;
}

function dashboardAssets(base: string): ReadonlyMap<string, Asset> {
  const { js, css } = uplot();
  return new Map([
    [base, asset('text/html; charset=utf-8', dashboardHtml(base))],
    [`${base}/dashboard.js`, asset('text/javascript; charset=utf-8', dashboardScript())],
    [`${base}/dashboard.css`, asset('text/css; charset=utf-8', DASHBOARD_CSS)],
    [`${base}/uPlot.iife.min.js`, asset('text/javascript; charset=utf-8', js)],
    [`${base}/uPlot.min.css`, asset('text/css; charset=utf-8', css)],
  ]);
}

/** Served only with a feed (absent: its paths answer 404). */
export const DASHBOARD_ROUTE: HttpRoute = {
  register(app, base, { options }) {
    if (options.dashboard) registerDashboard(app, base, options.dashboard);
  },
};

function registerDashboard(app: FastifyInstance, base: string, feed: DashboardFeed): void {
  for (const [path, file] of dashboardAssets(base)) {
    app.get(path, HIDDEN, async (req, reply) => {
      reply.header('etag', file.etag).header('cache-control', 'no-cache').header('content-security-policy', CSP).header('x-content-type-options', 'nosniff');
      if (req.headers['if-none-match'] === file.etag) return reply.code(304).send();
      return reply.header('content-type', file.type).send(file.body);
    });
  }
  app.get(`${base}/`, HIDDEN, async (_req, reply) => reply.redirect(base, 308));
  // No HEAD twin: a HEAD request would hold a watcher for a stream it never reads.
  app.get(`${base}/events`, { ...HIDDEN, exposeHeadRoute: false }, (req, reply) => {
    reply.hijack();
    const res = reply.raw;
    const sse = new SseWriter(res, { 'x-accel-buffering': 'no' });
    const watcher: DashboardWatcher = {
      send: (event, json) => {
        if (res.writableLength > MAX_BUFFERED_BYTES) res.destroy();
        else sse.event(event, json);
      },
      end: () => sse.end(),
    };
    const unwatch = feed.watch(watcher);
    res.once('close', unwatch);
    req.raw.once('close', unwatch);
  });
}
