// How a route describes itself in /openapi.json. The route's fastify schema is the one place:
// @fastify/swagger reads it from there. It describes and does not judge: the routes validate their
// bodies themselves with upstream's exact messages and statuses, so fastify is told to accept any
// body and to write replies as plain JSON (a response schema would otherwise drop unlisted fields).
import type { FastifySchema, RouteShorthandOptions } from 'fastify';
import type { JsonSchema } from '../../../pipeline/index.js';

export interface ResponseDoc {
  description: string;
  /** Media type → schema of the body. */
  content?: Record<string, JsonSchema>;
}

export interface RouteDoc {
  summary: string;
  /** Groups the operation in Swagger UI. */
  tag: string;
  description?: string;
  body?: JsonSchema;
  params?: JsonSchema;
  responses: Record<number, ResponseDoc>;
}

const acceptAnyBody = () => () => true;
const plainJson = () => (data: unknown) => JSON.stringify(data);

/**
 * The route options that put a route into /openapi.json (and nothing else). The body's schema is
 * given to the document only (the route's `swaggerTransform`): in the route's own schema fastify
 * would run a validator, one that accepts anything, on every request.
 */
export function documented(doc: RouteDoc): Pick<RouteShorthandOptions, 'schema' | 'validatorCompiler' | 'serializerCompiler' | 'config'> {
  const response = Object.fromEntries(
    Object.entries(doc.responses).map(([status, { description, content }]) => [
      status,
      content ? { description, content: Object.fromEntries(Object.entries(content).map(([type, schema]) => [type, { schema }])) } : { description },
    ]),
  );
  const schema: FastifySchema & Record<string, unknown> = { summary: doc.summary, tags: [doc.tag], response };
  if (doc.description !== undefined) schema.description = doc.description;
  if (doc.params !== undefined) schema.params = doc.params;
  const options = { schema, validatorCompiler: acceptAnyBody, serializerCompiler: plainJson };
  const body = doc.body;
  if (body === undefined) return options;
  return { ...options, config: { swaggerTransform: ({ schema: own, url }: { schema: FastifySchema; url: string }) => ({ schema: { ...own, body }, url }) } };
}

/** Kept out of /openapi.json (e.g. the 405 answers for the wrong method). */
export const HIDDEN = { schema: { hide: true } } as const;

export const json = (description: string, schema: JsonSchema = { type: 'object', additionalProperties: true }): ResponseDoc => ({
  description,
  content: { 'application/json': schema },
});

const OPENAI_ERROR_FIELDS: JsonSchema = {
  type: 'object',
  required: ['message', 'type', 'code'],
  properties: {
    message: { type: 'string' },
    type: { type: 'string', description: 'the HTTP reason phrase', example: 'Bad Request' },
    code: { type: 'integer', example: 400 },
    details: { type: 'object', additionalProperties: true },
  },
};

/** The flat error body of the OpenAI-style routes, repeated under `error` for the SDKs. */
const OPENAI_ERROR: JsonSchema = {
  ...OPENAI_ERROR_FIELDS,
  properties: { ...(OPENAI_ERROR_FIELDS.properties as JsonSchema), error: OPENAI_ERROR_FIELDS },
};

/** The errors every inference route answers before its stream starts. */
export const INFERENCE_ERRORS: Record<number, ResponseDoc> = {
  400: json('Invalid request: the message names the field', OPENAI_ERROR),
  404: json('Unknown model', OPENAI_ERROR),
  503: json('No ready worker for the model, or the service is draining', OPENAI_ERROR),
};

/** The `{"error": "..."}` body of the admin routes. */
export const adminError = (description: string): ResponseDoc =>
  json(description, { type: 'object', required: ['error'], properties: { error: { type: 'string' } } });

/** A 200 that is JSON, or server-sent events when the body asks for `stream: true`. */
export function jsonOrStream(description: string, schema: JsonSchema, events = '`data: <chunk JSON>` lines, then `data: [DONE]`'): ResponseDoc {
  return {
    description,
    content: {
      'application/json': schema,
      'text/event-stream': { type: 'string', description: events },
    },
  };
}
