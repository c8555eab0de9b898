// Tensor models over the request plane (model type TensorBased, input Tensor): the worker receives
// upstream's NvCreateTensorRequest JSON and answers NvCreateTensorResponse JSON in Annotated items
// (reference/kserve.md §6.1). In memory Bytes elements are Uint8Array and 64-bit integers bigint, as
// the gRPC frontend builds them; on the wire they are lists of byte values and bare JSON integers.
import type {
  NvCreateTensorRequest,
  NvCreateTensorResponse,
  TensorEngine,
  TensorModelConfig,
} from '../frontends/grpc/index.js';
import { slugify } from '../models/index.js';
import type { GenerateContext } from '../protocols/index.js';
import type { EndpointInstance } from './discovery/index.js';
import { remoteCall, type RemoteCallLogger } from './remote-stream.js';
import type { EndpointHandler, RequestPlaneClient } from './request-plane/index.js';

type Json = Record<string, unknown>;

const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Element lists by data type; anything malformed is passed through for the receiver to reject. */
function convertData(data: unknown, toWire: boolean): unknown {
  if (!isRecord(data) || !Array.isArray(data.values)) return data;
  const type = data.data_type;
  if (type === 'Bytes') {
    const values = data.values.map((v: unknown) =>
      toWire ? (v instanceof Uint8Array ? Array.from(v) : v) : Array.isArray(v) ? Uint8Array.from(v as number[]) : v,
    );
    return { ...data, values };
  }
  if (!toWire && (type === 'Int64' || type === 'Uint64')) {
    return { ...data, values: data.values.map((v: unknown) => (typeof v === 'number' && Number.isInteger(v) ? BigInt(v) : v)) };
  }
  return data;
}

/** A tensor request or response between its in-memory and its JSON form (`toWire`). */
function convertMessage(message: unknown, toWire: boolean): unknown {
  if (!isRecord(message) || !Array.isArray(message.tensors)) return message;
  const tensors = message.tensors.map((t: unknown) => (isRecord(t) ? { ...t, data: convertData(t.data, toWire) } : t));
  return { ...message, tensors };
}

/** Serves a TensorEngine as an endpoint handler; 64-bit values stay exact both ways. */
export function tensorEngineHandler(engine: TensorEngine): EndpointHandler {
  const serveTensors = async function* (request: unknown, ctx: GenerateContext): AsyncGenerator<unknown> {
    const typed = convertMessage(request, false) as NvCreateTensorRequest;
    for await (const res of engine.generate(typed, { requestId: ctx.requestId, signal: ctx.signal })) {
      yield { data: convertMessage(res, true) };
    }
  };
  return Object.assign(serveTensors, { exactIntegers: true });
}

/** A TensorEngine for one remote tensor worker instance. */
export class RemoteTensorClient implements TensorEngine {
  constructor(
    private readonly client: RequestPlaneClient,
    readonly instance: EndpointInstance,
    private readonly logger?: RemoteCallLogger,
  ) {}

  generate(request: NvCreateTensorRequest, ctx: GenerateContext): AsyncGenerator<NvCreateTensorResponse> {
    return remoteCall(
      this.client,
      this.instance,
      convertMessage(request, true),
      { requestId: ctx.requestId, signal: ctx.signal, exactIntegers: true },
      (data) => convertMessage(data, false) as NvCreateTensorResponse,
      this.logger,
    );
  }
}

/** The JSON form of a TensorModelConfig: `triton_model_config` bytes as a list of u8 (upstream serde). */
export function tensorModelConfigToJson(config: TensorModelConfig): Json {
  const { triton_model_config: triton, ...rest } = config;
  return triton ? { ...rest, triton_model_config: Array.from(triton) } : { ...rest };
}

/** A card's tensor model config: top-level (newest upstream) or under `runtime_config` (older). */
export function tensorModelConfigFromCard(card: Json): TensorModelConfig | undefined {
  const runtime = isRecord(card.runtime_config) ? card.runtime_config : {};
  const raw = card.tensor_model_config ?? runtime.tensor_model_config;
  if (!isRecord(raw)) return undefined;
  const triton = raw.triton_model_config;
  const config = {
    name: typeof raw.name === 'string' ? raw.name : '',
    inputs: Array.isArray(raw.inputs) ? raw.inputs : [],
    outputs: Array.isArray(raw.outputs) ? raw.outputs : [],
  } as TensorModelConfig;
  if (Array.isArray(triton)) config.triton_model_config = Uint8Array.from(triton as number[]);
  return config;
}

/**
 * The `card_json` a tensor worker publishes: no tokenizer files, display name = the model name
 * clients use, the tensor config at the top level. Register it with
 * `{modelType: ['TensorBased'], modelInput: 'Tensor'}`.
 */
export function tensorModelCardJson(displayName: string, config?: TensorModelConfig): Json {
  return {
    display_name: displayName,
    slug: slugify(displayName),
    source_path: displayName,
    model_info: null,
    tokenizer: null,
    prompt_formatter: null,
    chat_template_file: null,
    gen_config: null,
    prompt_context: null,
    context_length: 0,
    kv_cache_block_size: 0,
    migration_limit: 0,
    model_type: 'TensorBased',
    model_input: 'Tensor',
    worker_type: 'aggregated',
    runtime_config: {},
    ...(config ? { tensor_model_config: tensorModelConfigToJson(config) } : {}),
    user_data: null,
  };
}
