// Anthropic's Messages API (POST /v1/messages and its count_tokens), translated onto one chat
// request, behind --enable-anthropic-api.
import type { HttpRouteName } from '../../../protocols/index.js';
import type { HttpRoute } from '../http-route.js';
import { MESSAGES_ROUTE } from './messages-route.js';

export const ANTHROPIC_ROUTES = { anthropic: MESSAGES_ROUTE } satisfies Partial<Record<HttpRouteName, HttpRoute>>;
