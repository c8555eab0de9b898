// A worker's published card (`card_json`) → the ModelDeploymentCard the frontend serves. The card
// names its tokenizer files by absolute path (upstream CheckedFiles); on one host they are read in
// place. BLAKE3 checksums are checked before this runs (the discovery join, runtime/card-checksums.ts).
import {
  REASONING_PARSER_NAMES,
  STRUCTURAL_TAG_SCHEMAS,
  STRUCTURAL_TAG_SCOPES,
  structuralTagConfig,
  DEFAULT_STRUCTURAL_TAG_OPTIONS,
  type StructuralTagOptions,
  THINKING_MODES,
  TOOL_CALL_PARSER_NAMES,
  ValidationError,
  type ModelDeploymentCard,
  type ModelInput,
  type ModelTypeFlag,
  type StructuralTagPolicy,
} from '../../protocols/index.js';
import type { DpRanks, WorkerTotals } from '../../router/index.js';
import { loadCardFromFiles, loadModelCard } from '../card-loader.js';
import type { ModelParsers } from '../model-manager.js';

type Json = Record<string, unknown>;

function checkedPath(section: unknown, field: string): string | null {
  const file = (section as Json | null | undefined)?.[field] as Json | undefined;
  return typeof file?.path === 'string' ? file.path : null;
}

function positiveInt(...values: unknown[]): number | null {
  for (const v of values) if (Number.isInteger(v) && (v as number) > 0) return v as number;
  return null;
}

/** Throws with a reason when the card lacks what the frontend needs. */
export function cardFromCardJson(card: Json, servedName?: string): ModelDeploymentCard {
  const displayName = servedName ?? card.display_name;
  if (typeof displayName !== 'string' || !displayName) throw new Error('card_json has no display_name');
  const tokenizerJson = checkedPath(card.tokenizer, 'hf_tokenizer_json');
  if (!tokenizerJson) throw new Error(`card of ${displayName} names no hf_tokenizer_json file`);
  const runtimeConfig = (card.runtime_config ?? {}) as Json;
  const contextLength = positiveInt(runtimeConfig.context_length, card.context_length, card.architectural_max_context_length);
  if (contextLength === null) throw new Error(`card of ${displayName} has no context length`);
  const template = ((card.chat_template_file as Json | null | undefined)?.hf_chat_template ?? null) as Json | null;
  const loaded = loadCardFromFiles(
    {
      root: typeof card.source_path === 'string' ? card.source_path : '',
      tokenizerJson,
      tokenizerConfig: checkedPath(card.prompt_formatter, 'hf_tokenizer_config_json'),
      generationConfig: checkedPath(card.gen_config, 'hf_generation_config_json'),
      config: checkedPath(card.model_info, 'hf_config_json'),
      chatTemplate: checkedPath(template, 'file'),
    },
    {
      displayName,
      contextLength,
      kvCacheBlockSize: positiveInt(card.kv_cache_block_size) ?? undefined,
      migrationLimit: Number.isInteger(card.migration_limit) ? (card.migration_limit as number) : 0,
    },
  );
  const modelType = typeof card.model_type === 'string' ? (card.model_type.split('|').map((t) => t.trim()) as ModelTypeFlag[]) : loaded.modelType;
  const modelInput = (typeof card.model_input === 'string' ? card.model_input : loaded.modelInput) as ModelInput;
  return { ...loaded, modelType, modelInput };
}

/**
 * The card the frontend serves for a worker's card: read from `localModelPath`, the frontend's own
 * copy of the model's files, when it has one (the worker's block size and migration limit still
 * apply), else from the files the card names.
 */
export function servedCard(card: Json, servedName: string, localModelPath?: string): ModelDeploymentCard {
  if (!localModelPath) return cardFromCardJson(card, servedName);
  return loadModelCard(localModelPath, {
    displayName: servedName,
    kvCacheBlockSize: card.kv_cache_block_size as number | undefined,
    migrationLimit: Number.isInteger(card.migration_limit) ? (card.migration_limit as number) : undefined,
  });
}

/** The capacity a worker's card declares (`runtime_config.total_kv_blocks`, `max_num_batched_tokens`). */
export function cardWorkerTotals(card: Json): WorkerTotals {
  const runtimeConfig = (card.runtime_config ?? {}) as Json;
  return {
    kvTotalBlocks: positiveInt(runtimeConfig.total_kv_blocks) ?? undefined,
    maxNumBatchedTokens: positiveInt(runtimeConfig.max_num_batched_tokens) ?? undefined,
  };
}

/**
 * The data-parallel ranks a worker's card advertises (`runtime_config.data_parallel_start_rank`,
 * `data_parallel_size`); undefined when it says nothing, and the router then sends no rank.
 */
export function cardDpRanks(card: Json): DpRanks | undefined {
  const runtimeConfig = (card.runtime_config ?? {}) as Json;
  const size = positiveInt(runtimeConfig.data_parallel_size);
  if (size === null) return undefined;
  const start = runtimeConfig.data_parallel_start_rank;
  return { start: Number.isInteger(start) && (start as number) >= 0 ? (start as number) : 0, size };
}

type ParserField = 'tool_call_parser' | 'reasoning_parser' | 'default_thinking_mode';

/**
 * The parsers a worker's card names (`runtime_config.tool_call_parser`, `reasoning_parser`). A name
 * this frontend does not know refuses the card, as upstream v1.5 refuses it at registration: served
 * without its parser, the model would hand tool calls and reasoning back as plain text.
 */
export function cardParsers(card: Json, model: string): ModelParsers {
  const runtimeConfig = (card.runtime_config ?? {}) as Json;
  const runtimeData = (runtimeConfig.runtime_data ?? {}) as Json;
  const pick = <N extends string>(from: Json, field: ParserField, known: readonly N[]): N | null => {
    const name = from[field];
    if (name === undefined || name === null || name === '') return null;
    if (known.includes(name as N)) return name as N;
    throw new ValidationError(
      `model ${model}: its card names ${field} '${String(name)}', which this frontend does not have (known: ${known.join(', ')}); the model is not served until its workers name one of those`,
    );
  };
  return {
    toolCall: pick(runtimeConfig, 'tool_call_parser', TOOL_CALL_PARSER_NAMES),
    reasoning: pick(runtimeConfig, 'reasoning_parser', REASONING_PARSER_NAMES),
    // Upstream's workers publish the deployment's thinking default in the runtime data map.
    defaultThinking: pick(runtimeData, 'default_thinking_mode', THINKING_MODES),
  };
}

/**
 * The structural-tag settings a worker's card publishes: upstream's newest `structural_tag` object,
 * else the v1.5 fields (`structural_tag_mode` on, with `structural_tag_scope` and `_schema`, each
 * `auto` when absent). Null when off or unsaid. A value this frontend does not know refuses the
 * card, as upstream's card reader does.
 */
export function cardStructuralTag(card: Json, model: string): StructuralTagPolicy | null {
  const runtimeConfig = (card.runtime_config ?? {}) as Json;
  const refuse = (what: string): never => {
    throw new ValidationError(`model ${model}: its card's runtime_config.${what}; the model is not served until its workers publish a valid one`);
  };
  if (runtimeConfig.structural_tag !== undefined && runtimeConfig.structural_tag !== null) {
    try {
      const { scope, schema } = structuralTagConfig(runtimeConfig.structural_tag);
      return { scope, schema };
    } catch (err) {
      return refuse(`structural_tag ${(err as Error).message}`);
    }
  }
  const mode = runtimeConfig.structural_tag_mode ?? 'off';
  if (mode !== 'on' && mode !== 'off') refuse(`structural_tag_mode is '${String(mode)}' (known: off, on)`);
  const pick = <N extends string>(field: string, known: readonly N[]): N => {
    const value = runtimeConfig[field] ?? 'auto';
    return known.includes(value as N) ? (value as N) : refuse(`${field} is '${String(value)}' (known: ${known.join(', ')})`);
  };
  const scope = pick('structural_tag_scope', STRUCTURAL_TAG_SCOPES);
  const schema = pick('structural_tag_schema', STRUCTURAL_TAG_SCHEMAS);
  return mode === 'on' ? { scope, schema } : null;
}

/**
 * The parsers-v2 options a card's `structural_tag` object sets (read after cardStructuralTag has
 * checked it); upstream's defaults for a card without one (the v1.5 fields have no such options).
 */
export function cardStructuralTagOptions(card: Json): StructuralTagOptions {
  const given = ((card.runtime_config ?? {}) as Json).structural_tag;
  if (given === undefined || given === null) return DEFAULT_STRUCTURAL_TAG_OPTIONS;
  const config = structuralTagConfig(given);
  const options: StructuralTagOptions = { toolArgumentsAnyOrder: config.tool_arguments_any_order, reasoningBoundary: config.reasoning_boundary };
  if (config.allow_tool_calls_with_structured_output) options.toolCallsWithStructuredOutput = true;
  if (config.exclude_special_tokens !== null) options.excludeSpecialTokens = config.exclude_special_tokens;
  return options;
}

/** False when the worker's card says it publishes no KV events (`runtime_config.kv_events: false`, written by bridges). */
export function cardPublishesKvEvents(card: Json): boolean {
  return ((card.runtime_config ?? {}) as Json).kv_events !== false;
}
