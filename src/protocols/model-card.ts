// The ModelDeploymentCard: everything the frontend needs to serve one model, and its wire form
// (`card_json`) as upstream workers publish it under `v1/mdc/...`.

export type ModelTypeFlag = 'Chat' | 'Completions' | 'Embedding' | 'TensorBased' | 'Prefill' | 'Images' | 'Audios' | 'Videos';
export type ModelInput = 'Tokens' | 'Text' | 'Tensor';

/** A file the card refers to. The BLAKE3 checksum is optional until a hasher is available. */
export interface CardFile {
  path: string;
  size: number;
  checksum?: string;
}

export interface ModelDeploymentCard {
  /** The served model name. */
  displayName: string;
  slug: string;
  /** The model folder the card was loaded from. */
  sourcePath: string;
  /** Largest prompt + completion the model accepts. */
  contextLength: number;
  kvCacheBlockSize: number;
  migrationLimit: number;
  /** Ids that end generation: generation_config `eos_token_id` ∪ tokenizer_config `eos_token`. */
  eosTokenIds: number[];
  bosToken: string | null;
  eosToken: string | null;
  unkToken: string | null;
  /** Named chat templates (`default`, `tool_use`, ...); empty when the model has none. */
  chatTemplates: Record<string, string>;
  tokenizerJsonPath: string;
  tokenizerConfig: Record<string, unknown>;
  /** generation_config.json, or `{}`: holds defaults such as temperature. */
  generationConfig: Record<string, unknown>;
  /** config.json, when the folder has one. */
  modelConfig: Record<string, unknown> | null;
  modelType: ModelTypeFlag[];
  modelInput: ModelInput;
  /** Files by role, for the wire card. */
  files: {
    tokenizerJson: CardFile;
    tokenizerConfig: CardFile | null;
    chatTemplate: CardFile | null;
    generationConfig: CardFile | null;
    config: CardFile | null;
  };
}

/** A worker's role in (dis)aggregated serving, as its card's `worker_type` says. */
export type WorkerType = 'aggregated' | 'prefill' | 'decode';

/** The peer roles a worker of each type needs (upstream `needs`: any one of the outer list, all of an inner one). */
export const WORKER_TYPE_NEEDS: Readonly<Record<WorkerType, readonly (readonly WorkerType[])[]>> = {
  aggregated: [],
  prefill: [['decode']],
  decode: [['prefill']],
};

/**
 * The role a published card declares. A legacy card without `worker_type` but with the Prefill
 * model-type bit is a prefill card (upstream `discovery/readiness.rs`); any other is aggregated.
 */
export function cardWorkerType(cardJson: Record<string, unknown>): WorkerType {
  const declared = cardJson.worker_type;
  if (declared === 'prefill' || declared === 'decode') return declared;
  if (declared === undefined || declared === null) {
    const types = typeof cardJson.model_type === 'string' ? cardJson.model_type.split('|').map((t) => t.trim()) : [];
    if (types.includes('Prefill')) return 'prefill';
  }
  return 'aggregated';
}

/** Upstream slug rules: lowercase `a-z0-9-_`; `/` becomes `--`, anything else `_`. */
export function slugify(name: string): string {
  return name
    .toLowerCase()
    .replaceAll('/', '--')
    .replace(/[^a-z0-9_-]/g, '_');
}

/** The card in upstream's `card_json` field names (reference/upstream-wire.md §5). */
export function toCardJson(card: ModelDeploymentCard): Record<string, unknown> {
  const { files } = card;
  const json: Record<string, unknown> = {
    display_name: card.displayName,
    slug: card.slug,
    source_path: card.sourcePath,
    model_info: files.config ? { hf_config_json: checkedFile(files.config) } : null,
    tokenizer: { hf_tokenizer_json: checkedFile(files.tokenizerJson) },
    prompt_formatter: files.tokenizerConfig ? { hf_tokenizer_config_json: checkedFile(files.tokenizerConfig) } : null,
    chat_template_file: files.chatTemplate
      ? { hf_chat_template: { is_custom: false, file: checkedFile(files.chatTemplate) } }
      : null,
    gen_config: files.generationConfig ? { hf_generation_config_json: checkedFile(files.generationConfig) } : null,
    prompt_context: null,
    context_length: card.contextLength,
    architectural_max_context_length: card.contextLength,
    kv_cache_block_size: card.kvCacheBlockSize,
    migration_limit: card.migrationLimit,
    model_type: card.modelType.join(' | '),
    model_input: card.modelInput,
    worker_type: 'aggregated',
    runtime_config: { context_length: card.contextLength },
    user_data: null,
  };
  return json;
}

function checkedFile(file: CardFile): Record<string, unknown> {
  return file.checksum === undefined
    ? { path: file.path, size: file.size }
    : { path: file.path, checksum: file.checksum, size: file.size };
}

/**
 * What a frontend API needs of a model: the model type its card must list, and how a "wrong type"
 * error names the API. Each route says its own (e.g. chat: `{ type: 'Chat', describe: 'chat completions' }`).
 */
export interface ModelApi {
  readonly type: ModelTypeFlag;
  readonly describe: string;
}

/** Null when a card of `types` serves `api`, else the 400 message that says which type the model is. */
export function modelTypeMismatch(name: string, types: readonly ModelTypeFlag[], api: ModelApi): string | null {
  if (types.includes(api.type)) return null;
  const is = types.length > 0 ? types.join(' | ') : 'none';
  return `Model '${name}' is of type ${is} and cannot serve ${api.describe} (model type ${api.type} required)`;
}
