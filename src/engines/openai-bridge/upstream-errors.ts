// An upstream's refusal → the typed error the client sees. A 4xx is the request's fault: the same
// status with the engine's own message. A 5xx, a dropped connection or a timeout is the engine's
// fault: WorkerLostError, so the router takes the instance out and migration may move the request.
import {
  ForbiddenError,
  MethodNotAllowedError,
  NotFoundError,
  OverloadedError,
  PayloadTooLargeError,
  RequestTimeoutError,
  UnauthenticatedError,
  UnprocessableError,
  UnsupportedMediaTypeError,
  ValidationError,
  WorkerLostError,
  isDynamoError,
  type DynamoError,
} from '../../protocols/index.js';

/** The upstream's 4xx → our error of the same status; 429 is the engine saying it is busy; any other 4xx reads 400. */
const CLIENT_ERRORS: Readonly<Record<number, new (message: string) => DynamoError>> = {
  400: ValidationError,
  401: UnauthenticatedError,
  403: ForbiddenError,
  404: NotFoundError,
  405: MethodNotAllowedError,
  408: RequestTimeoutError,
  413: PayloadTooLargeError,
  415: UnsupportedMediaTypeError,
  422: UnprocessableError,
  429: OverloadedError,
};

/** The error for an upstream's non-2xx answer; `body` is its text. */
export function upstreamStatusError(url: string, status: number, body: string): DynamoError {
  const message = engineMessage(body) ?? `upstream ${url} answered ${status}`;
  if (status >= 500 || status < 400) return new WorkerLostError(`Disconnected: upstream ${url} answered ${status}: ${message}`);
  return new (CLIENT_ERRORS[status] ?? ValidationError)(message);
}

/** An error object inside a stream (vLLM writes `{"error": {...}}` as an event when generation fails). */
export function streamedError(url: string, error: unknown): DynamoError {
  const code = typeof (error as { code?: unknown })?.code === 'number' ? (error as { code: number }).code : 500;
  return upstreamStatusError(url, code, JSON.stringify({ error }));
}

/** The connection failed, closed early or timed out. */
export function upstreamLost(url: string, what: string): WorkerLostError {
  return new WorkerLostError(`Disconnected: upstream ${url} ${what}`);
}

/**
 * Why reading an answer failed, as the client's error: a typed error as it is, JSON that does not
 * parse as a malformed `part` (an event, the answer), anything else as the `whole` dropped (the
 * stream, the answer); both lost workers.
 */
export function answerFailure(url: string, err: unknown, part: string, whole: string): DynamoError {
  if (isDynamoError(err)) return err;
  if (err instanceof Error && err.name === 'SyntaxError') return upstreamLost(url, `sent a malformed ${part}: ${err.message}`);
  return upstreamLost(url, `dropped the ${whole}: ${(err as Error).message}`);
}

/** The message of an OpenAI-style error body (`{"error":{"message"}}`, `{"message"}`, `{"detail"}`), or its text. */
function engineMessage(body: string): string | undefined {
  const text = body.trim();
  if (text === '') return undefined;
  try {
    const json = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown; detail?: unknown };
    const candidates = [typeof json.error === 'object' ? json.error?.message : json.error, json.message, json.detail];
    const found = candidates.find((c) => typeof c === 'string' && c !== '');
    if (typeof found === 'string') return found;
  } catch {
    // Not JSON: the text itself is the message.
  }
  return text.slice(0, 1000);
}
