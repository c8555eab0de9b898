// Whole-process runtime tests: a frontend and mocker workers as separate processes sharing one
// discovery backend, configured only through the environment, as a deployment would be.
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
