// The streaming client the benches share: one chat request over node:http (fetch adds
// milliseconds of client-side latency of its own), timing the first content event.
import http from 'node:http';

export interface StreamTiming {
  ttftMs: number;
  /** SSE events carrying content: one per step that released text. */
  tokens: number;
  ms: number;
}

/** A long streaming chat request body that never ends early (`ignore_eos`); `extra` fields are added. */
export function streamingChatBody(model: string, maxTokens: number, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    ...extra,
    model,
    messages: [{ role: 'user', content: 'Write a long story about the sea.' }],
    max_tokens: maxTokens,
    ignore_eos: true,
    seed: 1,
    stream: true,
  });
}

/** Counts the data events that carry answer text (the default) or whatever `carriesToken` says. */
export function streamChat(
  port: number,
  payload: string,
  agent: http.Agent,
  carriesToken: (event: string) => boolean = (e) => e.includes('"content"'),
): Promise<StreamTiming> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    let first = 0;
    let tokens = 0;
    let tail = '';
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: '/v1/chat/completions',
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
      },
      (res) => {
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          const events = (tail + chunk).split('\n\n');
          tail = events.pop()!;
          for (const e of events) {
            if (!e.startsWith('data: {') || !carriesToken(e)) continue;
            if (tokens++ === 0) first = performance.now();
          }
        });
        res.on('end', () => resolve({ ttftMs: first - start, tokens, ms: performance.now() - start }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}
