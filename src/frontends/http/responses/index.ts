// OpenAI's Responses API (POST /v1/responses, and its WebSocket mode), translated onto one chat
// request, and its stored responses.
import type { HttpRouteName } from '../../../protocols/index.js';
import type { HttpRoute } from '../http-route.js';
import { RESPONSES_ROUTE } from './responses-route.js';

export const RESPONSES_ROUTES = { responses: RESPONSES_ROUTE } satisfies Partial<Record<HttpRouteName, HttpRoute>>;

export { newItemId } from './response-object.js';
export { defaultFileStoreDir } from './store/file-store.js';
export { DEFAULT_RESPONSES_SOCKET, type ResponsesSocketOptions } from './websocket/index.js';
export { DEFAULT_RESPONSE_STORE, RESPONSE_STORES, type ResponseStore, type ResponseStoreOptions, type StoredResponse } from './store/index.js';
