// The stored responses below the Responses path: GET /{id} (the Response object, or its events
// replayed with ?stream=true), DELETE /{id}, GET /{id}/input_items (paged) and POST /{id}/cancel.
// Every id is looked up as the caller's own (stored-responses.ts): anyone else's reads as unknown.

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ValidationError } from '../../../protocols/index.js';
import type { RouteContext } from '../http-route.js';
import { openEventStream } from '../model-route/index.js';
import { documented, json, type RouteDoc } from '../openapi/index.js';
import { postRoute, sendError } from '../server.js';
import { DEFAULT_RESPONSE_STORE, openResponseStore, type StoredResponse } from './store/index.js';
import { StoredResponses } from './stored-responses.js';

type Json = Record<string, unknown>;
type Query = Record<string, string | undefined>;

/**
 * The service's stored responses: the store opens as the service starts (a store that cannot open
 * fails the start) and closes with it.
 */
export function openStoredResponses(app: FastifyInstance, ctx: RouteContext): StoredResponses {
  const opening = openResponseStore(ctx.options.responseStore ?? DEFAULT_RESPONSE_STORE);
  // Awaited by the ready hook, which reports a failure; this keeps it from also being unhandled.
  opening.catch(() => undefined);
  app.addHook('onReady', async () => void (await opening));
  app.addHook('onClose', async () => (await opening).close());
  return new StoredResponses(opening, ctx.options.access?.keys);
}

const ID_PARAM = { type: 'object', properties: { id: { type: 'string', description: 'the response id, resp_…' } } };
const ERROR_404 = json('No response of yours has that id');

const RETRIEVE_DOC: RouteDoc = {
  summary: 'Retrieve a stored response',
  tag: 'OpenAI',
  description: 'The Response object; with `?stream=true` its events replayed as server-sent events (`starting_after=<n>` skips those up to sequence number n).',
  params: ID_PARAM,
  responses: { 200: json('The Response object, or its events'), 404: ERROR_404 },
};

const DELETE_DOC: RouteDoc = {
  summary: 'Delete a stored response',
  tag: 'OpenAI',
  params: ID_PARAM,
  responses: { 200: json('`{id, object: "response", deleted: true}`'), 404: ERROR_404 },
};

const INPUT_ITEMS_DOC: RouteDoc = {
  summary: "List a stored response's input items",
  tag: 'OpenAI',
  description: 'Paged by `limit` (1-100, default 20), `order` (`asc` or `desc`, default desc) and `after` (an item id).',
  params: ID_PARAM,
  responses: { 200: json('`{object: "list", data, first_id, last_id, has_more}`'), 400: json('A bad paging parameter'), 404: ERROR_404 },
};

const CANCEL_DOC: RouteDoc = {
  summary: 'Cancel a background response',
  tag: 'OpenAI',
  description: 'Only a response created with `background: true` can be cancelled, and none is here (background is refused): a stored response answers 400, an unknown one 404.',
  params: ID_PARAM,
  responses: { 200: json('The cancelled Response object (for a background response: never here)'), 400: json('The response is not a background response'), 404: ERROR_404 },
};

export function registerStoredRoutes(app: FastifyInstance, path: string, ctx: RouteContext, stored: StoredResponses): void {
  /** A handler of one stored response: the caller's own of the path's id, else the error reply. */
  const handle = (answer: (found: StoredResponse, req: FastifyRequest, reply: FastifyReply) => unknown) => async (req: FastifyRequest, reply: FastifyReply) => {
    try {
      const { id } = req.params as { id: string };
      return await answer(await stored.get(id, stored.ownerOf(req.headers)), req, reply);
    } catch (err) {
      return sendError(reply, err, ctx.state.overloadStatus);
    }
  };

  app.get(`${path}/:id`, documented(RETRIEVE_DOC), handle((found, req, reply) => {
    const query = req.query as Query;
    if (!flag(query.stream, 'stream')) return found.response;
    const after = integer(query.starting_after, 'starting_after', -1);
    const sse = openEventStream(reply, ctx.generation.sseKeepAliveMs);
    for (const [type, data] of found.events.slice(after + 1)) sse.event(type, data);
    sse.end();
    return reply;
  }));

  app.delete(`${path}/:id`, documented(DELETE_DOC), handle(async (found) => {
    const id = String(found.response.id);
    await stored.delete(id, found.owner);
    return { id, object: 'response', deleted: true };
  }));

  app.get(`${path}/:id/input_items`, documented(INPUT_ITEMS_DOC), handle((found, req) => inputItemsPage(found.inputItems, req.query as Query)));

  postRoute(app, `${path}/:id/cancel`, handle((found) => {
    throw new ValidationError(`Only responses created with \`background: true\` can be cancelled; response '${String(found.response.id)}' is ${String(found.response.status)}`);
  }), CANCEL_DOC);
}

/** One page of input items, as OpenAI's list endpoints answer. */
function inputItemsPage(items: readonly Json[], query: Query): Json {
  const limit = integer(query.limit, 'limit', 20);
  if (limit < 1 || limit > 100) throw new ValidationError(`\`limit\` must be between 1 and 100, got ${limit}`);
  const order = query.order ?? 'desc';
  if (order !== 'asc' && order !== 'desc') throw new ValidationError(`\`order\` must be asc or desc, got ${JSON.stringify(order)}`);
  const ordered = order === 'asc' ? items : [...items].reverse();
  let start = 0;
  if (query.after !== undefined) {
    const at = ordered.findIndex((item) => item.id === query.after);
    if (at < 0) throw new ValidationError(`\`after\`: no input item of this response has id ${JSON.stringify(query.after)}`);
    start = at + 1;
  }
  const data = ordered.slice(start, start + limit);
  return {
    object: 'list',
    data,
    first_id: data[0]?.id ?? null,
    last_id: data[data.length - 1]?.id ?? null,
    has_more: start + limit < ordered.length,
  };
}

function flag(value: string | undefined, name: string): boolean {
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  throw new ValidationError(`\`${name}\` must be true or false, got ${JSON.stringify(value)}`);
}

function integer(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n)) throw new ValidationError(`\`${name}\` must be an integer, got ${JSON.stringify(value)}`);
  return n;
}
