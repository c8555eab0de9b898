// The model card of a tensor worker (model type TensorBased, input Tensor) and its tensor config
// in upstream's `card_json` form.
import type { TensorModelConfig } from '../protocols/index.js';
import { slugify } from '../protocols/index.js';

type Json = Record<string, unknown>;

const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

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
