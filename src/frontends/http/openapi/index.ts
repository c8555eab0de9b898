// How the API describes itself: each route's `RouteDoc` (route-docs.ts), the document they make at
// /openapi.json and Swagger UI at /docs.
import type { HttpRouteName } from '../../../protocols/index.js';
import type { HttpRoute } from '../http-route.js';
import { OPENAPI_ROUTE } from './document.js';
import { DOCS_ROUTE } from './swagger-ui.js';

export const OPENAPI_ROUTES = { openapi: OPENAPI_ROUTE, docs: DOCS_ROUTE } satisfies Partial<Record<HttpRouteName, HttpRoute>>;

export { HIDDEN, INFERENCE_ERRORS, adminError, documented, json, jsonOrStream, type ResponseDoc, type RouteDoc } from './route-docs.js';
