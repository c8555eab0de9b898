// The live dashboard: its page (dashboard-page.ts), the browser script (dashboard-client.ts, served
// as text) and the server-sent snapshots, all below its one path.
import type { HttpRouteName } from '../../../protocols/index.js';
import type { HttpRoute } from '../http-route.js';
import { DASHBOARD_ROUTE } from './dashboard-route.js';

export const DASHBOARD_ROUTES = { dashboard: DASHBOARD_ROUTE } satisfies Partial<Record<HttpRouteName, HttpRoute>>;
