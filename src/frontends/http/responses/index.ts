// OpenAI's Responses API (POST /v1/responses), translated onto one chat request.
import type { HttpRouteName } from '../../../protocols/index.js';
import type { HttpRoute } from '../http-route.js';
import { RESPONSES_ROUTE } from './responses-route.js';

export const RESPONSES_ROUTES = { responses: RESPONSES_ROUTE } satisfies Partial<Record<HttpRouteName, HttpRoute>>;

export { newItemId } from './response-object.js';
