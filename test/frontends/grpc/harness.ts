// Shared setup for the gRPC tests: a frontend on a free port with upstream's test engines
// (split, failure, long_running, tensor) and a grpc-js client built from the project's proto.

import * as grpc from '@grpc/grpc-js';
import { loadProtos } from '../../../src/frontends/grpc/index.js';
import type { TensorModel } from '../../../src/protocols/index.js';
import { startKserveFrontend, type KserveFrontendOptions, type RunningKserveFrontend } from '../../../src/launch/index.js';
import { modelSettings } from '../../../src/launch/model-settings.js';
import { assembleModel, loadDefaultModelCard, ModelManager, type ServedModel } from '../../../src/models/index.js';
import { createLogger } from '../../../src/observability/index.js';
import type { EngineClient, GenerateContext, LLMEngineOutput, PreprocessedRequest } from '../../../src/protocols/index.js';
import { createRouterPolicy, PushRouter } from '../../../src/router/index.js';
import { runConfig } from '../../support/run-config.js';

/** Echoes the prompt tokens one per step (upstream's "split" engine splits the prompt into words). */
export class SplitEngine implements EngineClient {
  async *generate(req: PreprocessedRequest): AsyncIterable<LLMEngineOutput> {
    const ids = req.token_ids;
    for (let i = 0; i < ids.length; i++) {
      await new Promise((r) => setTimeout(r, 1));
      yield { token_ids: [ids[i]!], finish_reason: i === ids.length - 1 ? 'stop' : null };
    }
  }
}

/**
 * Generates `ids` over and over, one per step, until max_tokens (ignoring EOS, as a load test asks):
 * ids whose text is empty or incomplete (a skipped special token, half a character) make steps
 * that release no text.
 */
export class CyclingIdsEngine implements EngineClient {
  constructor(private readonly ids: readonly number[]) {}

  async *generate(req: PreprocessedRequest): AsyncIterable<LLMEngineOutput> {
    const max = req.stop_conditions.max_tokens ?? this.ids.length;
    for (let i = 0; i < max; i++) yield { token_ids: [this.ids[i % this.ids.length]!], finish_reason: i === max - 1 ? 'length' : null };
  }
}

export class FailureEngine implements EngineClient {
  // eslint-disable-next-line require-yield
  async *generate(): AsyncIterable<LLMEngineOutput> {
    throw new Error('Always fail');
  }
}

/** Waits 1 s unless cancelled; records whether it saw the cancellation. */
export class LongRunningEngine implements EngineClient {
  cancelled = false;
  async *generate(_req: PreprocessedRequest, ctx: GenerateContext): AsyncIterable<LLMEngineOutput> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 1000);
      ctx.signal.addEventListener('abort', () => {
        this.cancelled = true;
        clearTimeout(timer);
        resolve();
      });
    });
  }
}

let base: ServedModel | undefined;

/** A completions model named `name` served by `engine` (the tokenizer is loaded once per test file). */
export function completionsModel(name: string, engine: EngineClient): ServedModel {
  if (!base) {
    const config = runConfig(['serve'], {});
    const card = loadDefaultModelCard({ displayName: 'base', kvCacheBlockSize: 16 });
    base = assembleModel(card, modelSettings(config), { namespace: 'test', component: 'backend', endpoint: 'generate' }).served;
  }
  const router = new PushRouter(name, createRouterPolicy('round-robin'));
  router.setInstances([{ id: 1n, client: engine }]);
  return { ...base, name, router };
}

/** Tensor model echoing its inputs; an INT32 input `repeat` makes it answer repeat[0] times. */
export function tensorModel(name: string, config?: TensorModel['config']): TensorModel {
  return {
    name,
    config,
    engine: {
      async *generate(request) {
        const repeat = request.tensors.find((t) => t.metadata.name === 'repeat');
        const times = repeat ? Number(repeat.data.values[0]) : 1;
        for (let i = 0; i < times; i++) yield { model: request.model, tensors: request.tensors, parameters: request.parameters };
      },
    },
  };
}

export type Client = grpc.Client & Record<string, (...args: unknown[]) => unknown>;

export interface Harness {
  frontend: RunningKserveFrontend;
  models: ModelManager;
  client: Client;
  call<T = Record<string, unknown>>(method: string, request: unknown, metadata?: grpc.Metadata): Promise<T>;
  close(): Promise<void>;
}

export function makeClient(port: number, creds = grpc.credentials.createInsecure(), options: grpc.ClientOptions = {}): Client {
  const Ctor = grpc.makeGenericClientConstructor(loadProtos().inference, 'GRPCInferenceService');
  return new Ctor(`127.0.0.1:${port}`, creds, options) as unknown as Client;
}

export function unary<T>(client: Client, method: string, request: unknown, metadata = new grpc.Metadata()): Promise<T> {
  return new Promise((resolve, reject) => {
    (client[method] as (r: unknown, m: grpc.Metadata, cb: (e: grpc.ServiceError | null, res: T) => void) => void).call(
      client,
      request,
      metadata,
      (err, res) => (err ? reject(err) : resolve(res)),
    );
  });
}

/** Sends `requests` on one ModelStreamInfer call and collects what comes back until it ends. */
export function streamInfer(client: Client, requests: unknown[]): Promise<{ messages: any[]; error?: grpc.ServiceError }> {
  return new Promise((resolve) => {
    const call = (client.ModelStreamInfer as () => grpc.ClientDuplexStream<unknown, any>).call(client);
    const messages: any[] = [];
    call.on('data', (m) => messages.push(m));
    call.on('error', (error: grpc.ServiceError) => resolve({ messages, error }));
    call.on('end', () => resolve({ messages }));
    for (const r of requests) call.write(r);
    call.end();
  });
}

export async function startHarness(opts: { completions?: ServedModel[]; tensors?: TensorModel[] } & KserveFrontendOptions = {}): Promise<Harness> {
  const models = new ModelManager();
  for (const m of opts.completions ?? []) models.add(m);
  const frontend = await startKserveFrontend({
    host: '127.0.0.1',
    port: 0,
    metricsPort: null,
    logger: createLogger('error'),
    ...opts,
    models,
    tensorModels: opts.tensors,
  });
  const client = makeClient(frontend.grpcPort);
  return {
    frontend,
    models,
    client,
    call: (method, request, metadata) => unary(client, method, request, metadata),
    async close() {
      client.close();
      await frontend.stop();
    },
  };
}

/** `text_input` BYTES [1] as typed contents. */
export function textInput(text: string) {
  return { name: 'text_input', datatype: 'BYTES', shape: [1], contents: { bytes_contents: [Buffer.from(text)] } };
}

export function boolInput(name: string, value: boolean) {
  return { name, datatype: 'BOOL', shape: [1], contents: { bool_contents: [value] } };
}

/** Length-prefixed BYTES raw encoding. */
export function rawBytes(...items: string[]): Buffer {
  return Buffer.concat(items.flatMap((s) => {
    const len = Buffer.alloc(4);
    len.writeUInt32LE(Buffer.byteLength(s));
    return [len, Buffer.from(s)];
  }));
}

export function texts(output: { contents: { bytes_contents: Buffer[] } }): string[] {
  return output.contents.bytes_contents.map((b) => b.toString());
}
