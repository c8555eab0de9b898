import { NotFoundError } from '../protocols/index.js';
import type { PushRouter } from '../router/index.js';
import type { TokenTable } from '../pipeline/postprocess/index.js';
import type { Preprocessor } from '../pipeline/preprocess/index.js';
import type { ModelDeploymentCard } from '../protocols/index.js';

/** Everything needed to serve one model name: its card, pre/post-processing and its router. */
export interface ServedModel {
  readonly name: string;
  readonly card: ModelDeploymentCard;
  readonly preprocessor: Preprocessor;
  readonly tokenTable: TokenTable;
  readonly router: PushRouter;
  /** The worker endpoint serving it (`dyn://namespace.component.endpoint`). */
  readonly endpoint: { namespace: string; component: string; endpoint: string };
  /** Unix seconds when the model first appeared. */
  readonly created: number;
}

/** Name → served model. Discovery adds and removes models; frontends only look them up. */
export class ModelManager {
  private readonly models = new Map<string, ServedModel>();

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
