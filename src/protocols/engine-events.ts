// Engine request events on node:diagnostics_channel: a worker's engine publishes each request it
// served once it ended, so tracing (or anything else) can observe the worker side without the
// engine knowing who listens. Published only while the channel has subscribers.

import { channel, type Channel } from 'node:diagnostics_channel';
import type { TraceHeaders } from './engine.js';

/** One engine request, after it ended. Times are `performance.now()` milliseconds. */
export interface EngineRequestEvent {
  /** Which engine served it (`mocker`, ...). */
  readonly engine: string;
  readonly requestId: string;
  /** The trace context the request arrived with (request-plane headers), when any. */
  readonly trace: TraceHeaders | undefined;
  /** The engine's data-parallel rank. */
  readonly dpRank: number;
  readonly startedAt: number;
  /** When the first output left the engine (prefill done); null when none did. */
  readonly firstOutputAt: number | null;
  readonly endedAt: number;
  readonly promptTokens: number;
  /** Prompt tokens found in the engine's prefix cache. */
  readonly cachedTokens: number;
  readonly outputTokens: number;
  /** The finish reason of the last output; null when the request was stopped or failed first. */
  readonly finishReason: string | null;
  readonly error: unknown;
}

export const ENGINE_REQUEST_CHANNEL_NAME = 'dynamo-ts:engine:request';

export const engineRequestChannel: Channel = channel(ENGINE_REQUEST_CHANNEL_NAME);
