import type { Config } from '../config/index.js';
import { loadDefaultModelCard, loadModelCard, NO_PARSERS, type MediaRouter, type ModelParsers, type MediaRouters, type ModelDeploymentCard, type ServedModel } from '../models/index.js';
import { Preprocessor, type PreprocessPool } from '../pipeline/index.js';
import type { MediaKind, MediaWire } from '../protocols/index.js';
import { createRouterPolicy, EMBEDDING_REQUESTS, Router, UNHINTED_REQUESTS, type PolicyProvides, type RequestView } from '../router/index.js';
import { buildRouter, lostWorkerOptions, type LostWorkerOptions, type RouterDeps } from './router-options.js';
import { createTokenizer } from './tokenizer-backend.js';
import { sharedTokenTable } from './token-tables.js';
import { requestLimits } from './http-options.js';

/** The card of the model this process serves: `--model-path`, or the bundled Qwen3 tokenizer. */
export function loadConfiguredCard(config: Config, blockSize: number): ModelDeploymentCard {
  const opts = { displayName: config.modelName, kvCacheBlockSize: blockSize, migrationLimit: config.migrationLimit };
  return config.modelPath ? loadModelCard(config.modelPath, opts) : loadDefaultModelCard(opts);
}

export interface EndpointId {
  namespace: string;
  component: string;
  endpoint: string;
}

/** `dyn://ns.component.endpoint` → its parts. */
export function parseEndpoint(url: string): EndpointId {
  const [namespace, component, endpoint] = url.replace(/^dyn:\/\//, '').split('.');
  return { namespace: namespace!, component: component!, endpoint: endpoint! };
}

/**
 * Everything the frontend needs to serve a card: tokenizer, byte table, preprocessor and a router
 * with no instances yet. The token table and tokenizer are built here, never per request. Its
 * routers share `health`, the process's record of down instances; with `pool`, big prompts are
 * preprocessed on its threads.
 */
export function buildServedModel(
  card: ModelDeploymentCard,
  config: Config,
  endpoint: EndpointId,
  parsers: ModelParsers = NO_PARSERS,
  deps: RouterDeps = {},
  pool?: PreprocessPool,
): ServedModel {
  return assembleServedModel(card, config, endpoint, parsers, deps, pool).served;
}

/** The served model, with what its router's policy offers the wiring. */
export function assembleServedModel(
  card: ModelDeploymentCard,
  config: Config,
  endpoint: EndpointId,
  parsers: ModelParsers = NO_PARSERS,
  deps: RouterDeps = {},
  pool?: PreprocessPool,
): { served: ServedModel; provides: PolicyProvides } {
  const tokenTable = sharedTokenTable(card.tokenizerJsonPath, card.files.tokenizerConfig?.path);
  const warn = (message: string): void => deps.logger?.warn({ model: card.displayName }, message);
  const preprocessor = new Preprocessor(card, createTokenizer(card.tokenizerJsonPath, config, warn), {
    maxOutputTokens: config.maxOutputTokens,
    ignoreUnsupportedFields: config.ignoreOpenaiFeUnsupportedFields,
    nvextEnabled: !config.disableFrontendNvext,
    rejectMediaInputs: config.rejectMediaInputs,
    excludeToolsWhenToolChoiceNone: config.excludeToolsWhenToolChoiceNone,
    forwardMessages: card.modelInput === 'Text' || config.dynChatProcessor !== 'dynamo',
    limits: requestLimits(config),
    pool,
  });
  const { router, provides } = buildRouter(config, card, deps);
  const served: ServedModel = {
    name: card.displayName,
    card,
    preprocessor,
    tokenTable,
    router,
    media: mediaRouters(card.displayName, lostWorkerOptions(config, deps.health)),
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
