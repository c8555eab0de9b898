/** One message of a conversation; completions and KServe send the contents joined as one prompt. */
export interface Message {
  readonly role: 'system' | 'user' | 'assistant';
  readonly content: string;
}

/** What one request did, as the client saw it (times in ms from `performance.now()`). */
export interface Outcome {
  readonly startMs: number;
  readonly endMs: number;
  /** Time to the first piece of answer text; absent when not streaming or nothing came. */
  readonly ttftMs?: number;
  /** From the server's usage when it gave one, else the count of streamed pieces of text. */
  readonly outputTokens: number;
  readonly inputTokens?: number;
  /** Prompt tokens the server reported as served from the KV cache. */
  readonly cachedTokens?: number;
  readonly text: string;
  /** Set when the request failed: the status or error message. */
  readonly error?: string;
}

export interface BenchRequest {
  readonly model: string;
  readonly messages: readonly Message[];
  readonly maxTokens: number;
  readonly ignoreEos: boolean;
  readonly stream: boolean;
  readonly signal: AbortSignal;
}

/** Sends one request and reports its outcome; never rejects (failures are outcomes). */
export interface BenchClient {
  send(request: BenchRequest): Promise<Outcome>;
  close(): void;
}

/** The outcome of a request that failed at `startMs`. */
export function failed(startMs: number, err: unknown, partial: Partial<Outcome> = {}): Outcome {
  const error = err instanceof Error ? (err.name === 'AbortError' || err.name === 'TimeoutError' ? 'timed out or cancelled' : err.message) : String(err);
  return { startMs, endMs: performance.now(), outputTokens: 0, text: '', ...partial, error };
}

/** Completions and KServe take one prompt: the conversation's contents in order. */
export function joinedPrompt(messages: readonly Message[]): string {
  return messages.map((m) => m.content).join('');
}
