import { modelTypeMismatch, NotFoundError, ValidationError, type MediaKind, type MediaWire, type ModelApi } from '../protocols/index.js';
import type { PushRouter, Router } from '../router/index.js';
import type { TokenTable } from '../pipeline/postprocess/index.js';
import type { Preprocessor } from '../pipeline/preprocess/index.js';
import type { ModelDeploymentCard, ReasoningParserName, ThinkingMode, ToolCallParserName } from '../protocols/index.js';
import { StartupHold } from './startup-hold.js';

/** One router per media kind, over the same worker instances as the model's LLM router. */
export type MediaRouter<K extends MediaKind> = Router<MediaWire[K]['request'], MediaWire[K]['output']>;
export type MediaRouters = { readonly [K in MediaKind]: MediaRouter<K> };

/** The output parsers the workers' card names (`runtime_config`); null for none. */
export interface ModelParsers {
  readonly toolCall: ToolCallParserName | null;
  readonly reasoning: ReasoningParserName | null;
  /** The deployment's thinking default (`runtime_config.runtime_data.default_thinking_mode`). */
  readonly defaultThinking: ThinkingMode | null;
}

export const NO_PARSERS: ModelParsers = Object.freeze({ toolCall: null, reasoning: null, defaultThinking: null });

/** A worker endpoint (`dyn://namespace.component.endpoint`). */
export interface EndpointId {
  namespace: string;
  component: string;
  endpoint: string;
}

/** Everything needed to serve one model name: its card, pre/post-processing and its router. */
export interface ServedModel {
  readonly name: string;
  readonly card: ModelDeploymentCard;
  readonly preprocessor: Preprocessor;
  readonly tokenTable: TokenTable;
  readonly router: PushRouter;
  /** Embeddings, images and videos go to the workers through these. */
  readonly media: MediaRouters;
  /** The worker endpoint serving it (`dyn://namespace.component.endpoint`). */
  readonly endpoint: EndpointId;
  /** Unix seconds when the model first appeared. */
  readonly created: number;
  /** What the postprocessing applies to this model's output, as its workers ask. */
  readonly parsers: ModelParsers;
}

/** Name → served model. Discovery adds and removes models; frontends only look them up. */
export class ModelManager {
  private readonly models = new Map<string, ServedModel>();
  private hold = new StartupHold(0, () => this.workerCount());

  /** Startup readiness: open unless `holdUntilWorkers` asked for initial workers. */
  get startup(): StartupHold {
    return this.hold;
  }

  /** `--router-min-initial-workers`: readiness and inference wait for `n` distinct worker instances. */
  holdUntilWorkers(n: number): void {
    this.hold = new StartupHold(n, () => this.workerCount());
  }

  /** Distinct worker instances over every model (one worker may serve several models). */
  workerCount(): number {
    const ids = new Set<bigint>();
    for (const m of this.models.values()) for (const id of m.router.instanceIds) ids.add(id);
    return ids.size;
  }

  add(model: ServedModel): void {
    this.models.set(model.name, model);
  }

  remove(name: string): boolean {
    return this.models.delete(name);
  }

  /** The model, or 404 `Model not found`. */
  get(name: string): ServedModel {
    const model = this.models.get(name);
    if (!model) throw new NotFoundError('Model not found');
    return model;
  }

  /**
   * The model for one API: 404 when unknown, 400 naming the model's type when it is of another
   * type. Every route resolves its model here, so the check is the same everywhere.
   */
  getFor(name: string, api: ModelApi): ServedModel {
    this.hold.assertReady();
    const model = this.get(name);
    const mismatch = modelTypeMismatch(model.name, model.card.modelType, api);
    if (mismatch) throw new ValidationError(mismatch, { model: model.name, model_type: model.card.modelType });
    return model;
  }

  has(name: string): boolean {
    return this.models.has(name);
  }

  list(): ServedModel[] {
    return [...this.models.values()];
  }

  /** Models with at least one worker instance: what `/v1/models` lists. */
  listReady(): ServedModel[] {
    return this.list().filter((m) => m.router.instanceIds.length > 0);
  }
}
