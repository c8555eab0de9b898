// OpenAI chat and completions over node:http(s) with keep-alive: one socket per request in flight,
// SSE read by hand (fetch adds client-side latency of its own to every measured TTFT).
import http from 'node:http';
import https from 'node:https';
import { failed, joinedPrompt, type BenchClient, type BenchRequest, type Message, type Outcome } from './outcome.js';

/** How one OpenAI API shapes its body and where its answer text is. */
interface OpenAiShape {
  readonly path: string;
  body(model: string, messages: readonly Message[]): Record<string, unknown>;
  /** Text of a streamed chunk's (or with `unary`, a whole answer's) first choice. */
  text(choice: Record<string, any> | undefined, unary: boolean): string | undefined;
}

const SHAPES = {
  chat: {
    path: '/v1/chat/completions',
    body: (model, messages) => ({ model, messages }),
    text: (choice, unary) => (unary ? choice?.message?.content : choice?.delta?.content),
  },
  completions: {
    path: '/v1/completions',
    body: (model, messages) => ({ model, prompt: joinedPrompt(messages) }),
    text: (choice) => choice?.text,
  },
} as const satisfies Record<string, OpenAiShape>;

export type OpenAiApi = keyof typeof SHAPES;

interface Usage {
  prompt_tokens?: number;
  completion_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number } | null;
}

export function openAiClient(api: OpenAiApi, baseUrl: string): BenchClient {
  const shape: OpenAiShape = SHAPES[api];
  const url = new URL(shape.path, baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
  const transport = url.protocol === 'https:' ? https : http;
  const agent = new transport.Agent({ keepAlive: true, maxSockets: Infinity });
  return {
    send: (request) => post(transport, agent, url, shape, request),
    close: () => agent.destroy(),
  };
}

function post(transport: typeof http | typeof https, agent: http.Agent, url: URL, shape: OpenAiShape, r: BenchRequest): Promise<Outcome> {
  const body = JSON.stringify({
    ...shape.body(r.model, r.messages),
    max_tokens: r.maxTokens,
    ...(r.ignoreEos ? { ignore_eos: true } : {}),
    stream: r.stream,
    ...(r.stream ? { stream_options: { include_usage: true } } : {}),
  });
  const startMs = performance.now();
  return new Promise((resolve) => {
    let ttftMs: number | undefined;
    let pieces = 0;
    let text = '';
    let usage: Usage | undefined;
    const finish = (error?: unknown) => {
      if (error !== undefined) return resolve(failed(startMs, error, { ttftMs, text }));
      resolve({
        startMs,
        endMs: performance.now(),
        ttftMs,
        outputTokens: usage?.completion_tokens ?? pieces,
        inputTokens: usage?.prompt_tokens,
        cachedTokens: usage?.prompt_tokens_details?.cached_tokens ?? undefined,
        text,
      });
    };
    const req = transport.request(url, {
      method: 'POST',
      agent,
      signal: r.signal,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    }, (res) => {
      res.setEncoding('utf8');
      let raw = '';
      const streamed = r.stream && res.statusCode === 200;
      res.on('data', (chunk: string) => {
        raw += chunk;
        if (!streamed) return;
        let end: number;
        while ((end = raw.indexOf('\n\n')) !== -1) {
          const event = raw.slice(0, end);
          raw = raw.slice(end + 2);
          if (!event.startsWith('data: {')) continue;
          let data: { choices?: Record<string, any>[]; usage?: Usage | null };
          try {
            data = JSON.parse(event.slice(6));
          } catch (err) {
            res.destroy();
            return finish(new Error(`unreadable stream event: ${(err as Error).message}`));
          }
          if (data.usage) usage = data.usage;
          const piece = shape.text(data.choices?.[0], false);
          if (piece === undefined || piece === null || piece === '') continue;
          if (pieces++ === 0) ttftMs = performance.now() - startMs;
          text += piece;
        }
      });
      res.on('error', finish);
      res.on('end', () => {
        if (res.statusCode !== 200) return finish(new Error(`HTTP ${res.statusCode}: ${raw.slice(0, 200)}`));
        if (streamed) return finish();
        try {
          const data = JSON.parse(raw) as { choices?: Record<string, any>[]; usage?: Usage };
          usage = data.usage;
          text = shape.text(data.choices?.[0], true) ?? '';
          pieces = text === '' ? 0 : 1;
          finish();
        } catch (err) {
          finish(err);
        }
      });
    });
    req.on('error', finish);
    req.end(body);
  });
}
