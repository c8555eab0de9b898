// KServe v2 gRPC text completions (the vLLM-backend inputs): ModelStreamInfer when streaming, one
// call per request, else ModelInfer. Token counts come from `num_output_tokens`.
import * as grpc from '@grpc/grpc-js';
import { loadProtos } from '../../../frontends/grpc/index.js';
import { failed, joinedPrompt, type BenchClient, type BenchRequest, type Outcome } from './outcome.js';

interface Tensor {
  name: string;
  contents?: { bytes_contents?: Buffer[]; uint_contents?: number[] };
}
interface InferResponse {
  outputs?: Tensor[];
}
interface StreamResponse {
  error_message?: string;
  infer_response?: InferResponse | null;
}
type InferClient = grpc.Client & {
  ModelInfer(request: unknown, options: grpc.CallOptions, done: (err: grpc.ServiceError | null, res: InferResponse) => void): grpc.ClientUnaryCall;
  ModelStreamInfer(options: grpc.CallOptions): grpc.ClientDuplexStream<unknown, StreamResponse>;
};

/** `grpc://host:port` or `host:port`. */
export function grpcTarget(url: string): string {
  return url.replace(/^grpc:\/\//, '').replace(/\/$/, '');
}

export function kserveClient(url: string): BenchClient {
  const Client = grpc.makeGenericClientConstructor(loadProtos().inference, 'GRPCInferenceService');
  const client = new Client(grpcTarget(url), grpc.credentials.createInsecure(), {
    'grpc.max_receive_message_length': -1,
  }) as unknown as InferClient;
  return {
    send: (request) => (request.stream ? streamInfer(client, request) : unaryInfer(client, request)),
    close: () => client.close(),
  };
}

function inferRequest(r: BenchRequest): unknown {
  const bytes = (name: string, value: string) => ({ name, datatype: 'BYTES', shape: [1], contents: { bytes_contents: [Buffer.from(value)] } });
  const bool = (name: string, value: boolean) => ({ name, datatype: 'BOOL', shape: [1], contents: { bool_contents: [value] } });
  const sampling = { max_tokens: r.maxTokens, ...(r.ignoreEos ? { ignore_eos: true } : {}) };
  return {
    model_name: r.model,
    inputs: [
      bytes('text_input', joinedPrompt(r.messages)),
      bytes('sampling_parameters', JSON.stringify(sampling)),
      bool('stream', r.stream),
      bool('return_num_input_tokens', true),
      bool('return_num_output_tokens', true),
    ],
  };
}

function read(res: InferResponse | null | undefined): { text: string; outputTokens: number; inputTokens?: number } {
  const out = (name: string) => res?.outputs?.find((t) => t.name === name)?.contents;
  return {
    text: out('text_output')?.bytes_contents?.map((b) => b.toString('utf8')).join('') ?? '',
    outputTokens: out('num_output_tokens')?.uint_contents?.reduce((a, b) => a + Number(b), 0) ?? 0,
    inputTokens: out('num_input_tokens')?.uint_contents?.[0],
  };
}

function unaryInfer(client: InferClient, r: BenchRequest): Promise<Outcome> {
  const startMs = performance.now();
  return new Promise((resolve) => {
    const call = client.ModelInfer(inferRequest(r), {}, (err, res) => {
      r.signal.removeEventListener('abort', cancel);
      if (err) return resolve(failed(startMs, new Error(`gRPC ${grpc.status[err.code]}: ${err.details}`)));
      const { text, outputTokens, inputTokens } = read(res);
      resolve({ startMs, endMs: performance.now(), text, outputTokens, inputTokens });
    });
    const cancel = () => call.cancel();
    r.signal.addEventListener('abort', cancel, { once: true });
  });
}

function streamInfer(client: InferClient, r: BenchRequest): Promise<Outcome> {
  const startMs = performance.now();
  return new Promise((resolve) => {
    const call = client.ModelStreamInfer({});
    let ttftMs: number | undefined;
    let text = '';
    let outputTokens = 0;
    let inputTokens: number | undefined;
    let error: string | undefined;
    const cancel = () => call.cancel();
    r.signal.addEventListener('abort', cancel, { once: true });
    call.on('data', (message: StreamResponse) => {
      if (message.error_message) {
        error = message.error_message;
        return;
      }
      const piece = read(message.infer_response);
      if (piece.text !== '' && ttftMs === undefined) ttftMs = performance.now() - startMs;
      text += piece.text;
      outputTokens += piece.outputTokens;
      inputTokens ??= piece.inputTokens;
    });
    const done = (err?: grpc.ServiceError) => {
      r.signal.removeEventListener('abort', cancel);
      const problem = err ? `gRPC ${grpc.status[err.code]}: ${err.details}` : error;
      if (problem !== undefined) return resolve(failed(startMs, new Error(problem), { ttftMs, text }));
      resolve({ startMs, endMs: performance.now(), ttftMs, text, outputTokens, inputTokens });
    };
    call.on('error', done);
    call.on('end', () => done());
    call.write(inferRequest(r));
    call.end();
  });
}
