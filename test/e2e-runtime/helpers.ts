// Whole-process runtime tests: a frontend and mocker workers as separate processes sharing one
// discovery backend, configured only through the environment, as a deployment would be.
import OpenAI from 'openai';
import { postJson } from '../support/in-process.js';
import { freePort, startProcess, waitForModel, type RunningProcess } from '../support/processes.js';

export const MODEL = 'Qwen/Qwen3-0.6B';

export async function startFrontendProcess(env: Record<string, string>, args: string[] = []) {
  const port = await freePort();
  const proc = startProcess(['frontend', '--http-host', '127.0.0.1', '--http-port', String(port), ...args], { DYN_LOG: 'warn', ...env });
  return { proc, baseUrl: `http://127.0.0.1:${port}` };
}

export function startMockerProcess(env: Record<string, string>, args: string[] = []): RunningProcess {
  return startProcess(['mocker', ...args], { DYN_LOG: 'warn', DYN_TCP_RPC_HOST: '127.0.0.1', ...env });
}

export { waitForModel };

export async function modelIds(baseUrl: string): Promise<string[]> {
  const res = await fetch(`${baseUrl}/v1/models`);
  const body = (await res.json()) as { data: { id: string }[] };
  return body.data.map((m) => m.id).sort();
}

export async function complete(baseUrl: string, model = MODEL, maxTokens = 4, prompt = 'hello there') {
  const res = await postJson(baseUrl, '/v1/completions', { model, prompt, max_tokens: maxTokens });
  return { status: res.status, body: (await res.json()) as { choices?: { text: string; finish_reason: string }[]; error?: { message: string } } };
}

/** A streamed chat request read to its end; returns the raw SSE text. */
export async function streamChat(baseUrl: string, maxTokens: number, onFirstChunk?: () => void): Promise<string> {
  const res = await postJson(baseUrl, '/v1/chat/completions', {
    model: MODEL,
    messages: [{ role: 'user', content: 'tell me a long story' }],
    max_tokens: maxTokens,
    ignore_eos: true,
    stream: true,
  });
  let text = '';
  const decoder = new TextDecoder();
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    if (!text) onFirstChunk?.();
    text += decoder.decode(chunk, { stream: true });
  }
  return text;
}

/** Polls `check` every 100 ms until it holds, failing past `timeoutMs`. */
export async function until(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function stopAll(procs: (RunningProcess | undefined)[]): Promise<void> {
  await Promise.all(procs.map((p) => p?.stop(3000)));
}

/** How one streamed chat request ended, as its client saw it. */
export interface ChatOutcome {
  text: string;
  finish?: string | null;
  completionTokens?: number;
  error?: string;
}

/** A streamed chat request (seeded, ignore_eos) read to its end through the OpenAI client; `onChunk` runs on each chunk. */
export async function chatStream(baseUrl: string, seed: number, maxTokens: number, onChunk: () => void = () => undefined): Promise<ChatOutcome> {
  const client = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey: 'none', maxRetries: 0, timeout: 600_000 });
  const outcome: ChatOutcome = { text: '' };
  try {
    const stream = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: `tale number ${seed}` }],
      seed,
      max_tokens: maxTokens,
      ignore_eos: true,
      stream: true,
      stream_options: { include_usage: true },
    } as OpenAI.ChatCompletionCreateParamsStreaming);
    for await (const chunk of stream) {
      outcome.text += chunk.choices[0]?.delta.content ?? '';
      outcome.finish = chunk.choices[0]?.finish_reason ?? outcome.finish;
      outcome.completionTokens ??= chunk.usage?.completion_tokens;
      onChunk();
    }
  } catch (err) {
    outcome.error = (err as Error).message;
  }
  return outcome;
}

/** Starts `count` streams (`seed0 + i`) and resolves once each has output (or all ended), with the promise of their outcomes. */
export async function streamsUnderWay(baseUrl: string, count: number, maxTokens: number, seed0: number): Promise<{ outcomes: Promise<ChatOutcome[]> }> {
  let started = 0;
  let release!: () => void;
  const allStarted = new Promise<void>((resolve) => (release = resolve));
  const outcomes = Promise.all(
    Array.from({ length: count }, (_, i) => {
      let first = true;
      return chatStream(baseUrl, seed0 + i, maxTokens, () => {
        if (!first) return;
        first = false;
        if (++started === count) release();
      });
    }),
  );
  await Promise.race([allStarted, outcomes]);
  return { outcomes };
}
