// A card becomes a served model: its tokenizer, byte table, preprocessor and routers, the routers
// with no instances yet. The token table and tokenizer are built here, never per request.
import { Preprocessor, type HfTokenizer, type PreprocessorOptions, type PreprocessPool } from '../../pipeline/index.js';
import type { MediaKind, MediaWire, ModelDeploymentCard, StructuralTagOptions, StructuralTagPolicy } from '../../protocols/index.js';
import { createRouterPolicy, EMBEDDING_REQUESTS, Router, UNHINTED_REQUESTS, type PolicyProvides, type RequestView } from '../../router/index.js';
import { NO_PARSERS, type EndpointId, type MediaRouter, type MediaRouters, type ModelParsers, type ServedModel } from '../model-manager.js';
import { AGGREGATED_WORKERS, buildModelRouter, lostWorkerOptions, type LostWorkerOptions, type RouterDeps, type RouterSettings, type RouterWorkers } from './model-router.js';
import { sharedTokenTable } from './token-tables.js';

/** The tokenizer of a tokenizer.json, of the frontend's backend; `warn` hears why it fell back. */
export type TokenizerFactory = (tokenizerJsonPath: string, warn: (message: string) => void) => HfTokenizer;

/** How the frontend serves every model (launch translates its flags). */
export interface ModelSettings {
  readonly tokenizer: TokenizerFactory;
  /** `forwardMessages` is the frontend's choice; a text-input card's messages are forwarded anyway. */
  readonly preprocessing: Omit<PreprocessorOptions, 'pool'>;
  readonly router: RouterSettings;
}

export interface AssemblyOptions {
  /** The output parsers the workers' card names; none by default. */
  parsers?: ModelParsers;
  /** The structural-tag settings the workers' card publishes; off by default. */
  structuralTag?: StructuralTagPolicy | null;
  /** The parsers-v2 options of those settings; upstream's defaults when absent. */
  structuralTagOptions?: StructuralTagOptions;
  /** Whom the model's router routes to; aggregated workers publishing KV events by default. */
  workers?: RouterWorkers;
  /** What its routers share with the others of the process. */
  deps?: RouterDeps;
  /** With `--dyn-preprocess-workers`: the threads big prompts are preprocessed on. */
  pool?: PreprocessPool;
}

/** A served model, and what its router's policy offers the wiring. */
export interface AssembledModel {
  readonly served: ServedModel;
  readonly provides: PolicyProvides;
}

export function assembleModel(card: ModelDeploymentCard, settings: ModelSettings, endpoint: EndpointId, options: AssemblyOptions = {}): AssembledModel {
  const { parsers = NO_PARSERS, structuralTag = null, structuralTagOptions, workers = AGGREGATED_WORKERS, deps = {}, pool } = options;
  const tokenTable = sharedTokenTable(card.tokenizerJsonPath, card.files.tokenizerConfig?.path);
  const warn = (message: string): void => deps.logger?.warn({ model: card.displayName }, message);
  const preprocessor = new Preprocessor(card, settings.tokenizer(card.tokenizerJsonPath, warn), {
    ...settings.preprocessing,
    forwardMessages: card.modelInput === 'Text' || settings.preprocessing.forwardMessages === true,
    pool,
    defaultThinking: parsers.defaultThinking,
    parsers: { toolCall: parsers.toolCall, reasoning: parsers.reasoning, structuralTag, structuralTagOptions },
  });
  const { router, provides } = buildModelRouter(settings.router, card, workers, deps);
  const served: ServedModel = {
    name: card.displayName,
    card,
    preprocessor,
    tokenTable,
    router,
    media: mediaRouters(card.displayName, lostWorkerOptions(settings.router, deps.health)),
    endpoint,
    created: Math.floor(Date.now() / 1000),
    parsers,
  };
  return { served, provides };
}

/**
 * Embeddings, images and videos go round-robin, as upstream's default push router does: there is
 * no KV cache to aim at and no decode load to balance.
 */
function mediaRouters(name: string, opts: LostWorkerOptions): MediaRouters {
  return {
    embeddings: roundRobin<'embeddings'>(name, EMBEDDING_REQUESTS, opts),
    images: roundRobin<'images'>(name, UNHINTED_REQUESTS, opts),
    videos: roundRobin<'videos'>(name, UNHINTED_REQUESTS, opts),
  };
}

function roundRobin<K extends MediaKind>(name: string, view: RequestView<MediaWire[K]['request']>, opts: LostWorkerOptions): MediaRouter<K> {
  return new Router<MediaWire[K]['request'], MediaWire[K]['output']>(name, createRouterPolicy('round-robin'), view, opts);
}
