// Checks of exported traces shared by the tracing tests: a client span context to send, and what
// one generation's spans must look like.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type OpenAI from 'openai';
import type { CollectedSpan } from './otlp-collector.js';

export const MODEL = 'Qwen/Qwen3-0.6B';

/** A unary chat request for exactly five tokens, the count `assertGenerationTrace` expects. */
export function fiveTokenChat(content: string): OpenAI.ChatCompletionCreateParamsNonStreaming & { ignore_eos: boolean } {
  return { model: MODEL, messages: [{ role: 'user', content }], max_tokens: 5, ignore_eos: true };
}

/** A client span context: a fresh trace id and span id, sampled. */
export function clientContext(): { traceId: string; spanId: string; traceparent: string } {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

/** The one span named `name` in `spans`. */
export function only(spans: CollectedSpan[], name: string): CollectedSpan {
  const found = spans.filter((s) => s.name === name);
  assert.equal(found.length, 1, `one ${name} span among ${spans.map((s) => s.name).join(', ')}`);
  return found[0]!;
}

/**
 * Checks one generation's trace: the request span under the client's span, preprocess (with
 * template and tokenize), routing and the engine call under it, and the worker's span under the
 * engine call. Returns the request span.
 */
export function assertGenerationTrace(
  spans: CollectedSpan[],
  client: { spanId: string },
  requestSpan: string,
  routing: { span: string; mode: string } = { span: 'router.route_request', mode: 'round-robin' },
): CollectedSpan {
  const root = only(spans, requestSpan);
  assert.equal(root.parentSpanId, client.spanId);
  assert.equal(root.kind, 2, 'SERVER');
  assert.equal(root.attributes.model, MODEL);
  assert.ok(typeof root.attributes.request_id === 'string' && root.attributes.request_id !== '');
  const preprocess = only(spans, 'preprocess');
  assert.equal(preprocess.parentSpanId, root.spanId);
  assert.equal(only(spans, 'preprocess.tokenize').parentSpanId, preprocess.spanId);
  const route = only(spans, routing.span);
  assert.equal(route.parentSpanId, root.spanId);
  assert.equal(route.attributes.router_mode, routing.mode);
  assert.match(String(route.attributes.worker_id), /^\d+$/);
  const call = only(spans, 'client_request');
  assert.equal(call.parentSpanId, root.spanId);
  assert.equal(call.kind, 3, 'CLIENT');
  assert.equal(call.attributes.instance_id, route.attributes.worker_id);
  assert.equal(call.attributes.operation, 'generate');
  const engine = only(spans, 'mocker.generate');
  assert.equal(engine.parentSpanId, call.spanId, 'the worker span joins the trace under the engine call');
  assert.equal(engine.service, 'dynamo-ts-mocker');
  assert.ok(Number(engine.attributes['prefill.prompt_tokens']) > 0);
  assert.equal(engine.attributes['decode.output_tokens'], 5);
  assert.equal(only(spans, 'prefill').parentSpanId, engine.spanId);
  assert.equal(only(spans, 'decode').parentSpanId, engine.spanId);
  assert.equal(only(spans, 'postprocess').parentSpanId, root.spanId);
  assert.equal(root.attributes.output_tokens, 5);
  assert.ok(Number(root.attributes.input_tokens) > 0);
  assert.match(String(root.attributes.ttft_ms), /^\d+\.\d{2}$/);
  for (const s of spans) assert.ok(s.endNs >= s.startNs, `${s.name} ends after it starts`);
  return root;
}

