// What a client sends on a Responses WebSocket, and how the server refuses it. Each text message is
// one JSON event; the one event there is, `response.create`, carries the fields of a POST
// /v1/responses body (the POST's own checks judge them) plus `generate`. `stream` is implied by the
// transport: sent anyway, it is ignored. A refusal is the reference's error event:
// `{type: "error", status, error: {type, code, message, param}}`, with the status and message the
// same body would get from the POST.

import type { RawData } from 'ws';
import { isDynamoError, ValidationError } from '../../../../protocols/index.js';
import { httpErrorReply } from '../../error-envelope.js';

type Json = Record<string, unknown>;

/** A `response.create` event, split into the POST body it carries and whether to generate. */
export interface CreateEvent {
  body: Json;
  /** False for a warm-up: the response is prepared (validated, rendered, tokenized) and completes with no output. */
  generate: boolean;
}

/** Fields of the event that are not fields of the POST body. */
const EVENT_ONLY = new Set(['type', 'generate', 'stream']);

/** The `response.create` a message carries; a ValidationError naming what is wrong otherwise. */
export function parseClientEvent(data: RawData, isBinary: boolean): CreateEvent {
  if (isBinary) throw new ValidationError('Binary messages are not accepted: send each event as a JSON text message');
  let event: unknown;
  try {
    event = JSON.parse(text(data));
  } catch (err) {
    throw new ValidationError(`The message is not valid JSON: ${(err as Error).message}`);
  }
  if (typeof event !== 'object' || event === null || Array.isArray(event)) {
    throw new ValidationError('An event must be a JSON object with a `type`');
  }
  const { type, generate } = event as Json;
  if (type !== 'response.create') {
    throw new ValidationError(`Unsupported event type ${JSON.stringify(type)}: the client event is \`response.create\``, { param: 'type' });
  }
  if (generate !== undefined && generate !== null && typeof generate !== 'boolean') {
    throw new ValidationError(`\`generate\` must be a boolean, got ${JSON.stringify(generate)}`, { param: 'generate' });
  }
  const body = Object.fromEntries(Object.entries(event as Json).filter(([field]) => !EVENT_ONLY.has(field)));
  return { body, generate: generate !== false };
}

function text(data: RawData): string {
  const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
  return bytes.toString('utf8');
}

/** The error event of `err`: code and param from its details (`previous_response_not_found`, the field it names). */
export function errorEvent(err: unknown, overloadStatus: number): string {
  const { status, body } = httpErrorReply(err, overloadStatus);
  const details = isDynamoError(err) ? err.details : undefined;
  const named = (value: unknown): string | null => (typeof value === 'string' ? value : null);
  return JSON.stringify({
    type: 'error',
    status,
    error: { type: status < 500 ? 'invalid_request_error' : 'server_error', code: named(details?.code), message: body.message, param: named(details?.param) },
  });
}
