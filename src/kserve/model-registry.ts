// The gRPC frontend's view of what it serves: completions models from the shared ModelManager,
// tensor models registered by tensor workers, and the model repository's configs. Also carries
// the load/unload state behind the repository RPCs.

import { ModelManager, type ServedModel } from '../models/index.js';
import { NotFoundError, UnavailableError, type TensorModel } from '../protocols/index.js';
import type { ModelRepository } from './model-config/repository.js';

export type ResolvedModel = { kind: 'completions'; served: ServedModel } | { kind: 'tensor'; model: TensorModel };

export interface ModelIndexEntry {
  name: string;
  version: string;
  state: 'READY' | 'UNAVAILABLE';
  reason: string;
}

export class KserveModels {
  private readonly tensors = new Map<string, TensorModel>();
  /** Unloaded models, kept so RepositoryModelLoad can bring them back. */
  private readonly parked = new Map<string, ResolvedModel>();

  constructor(
    readonly manager: ModelManager,
    readonly repository?: ModelRepository,
  ) {}

  addTensorModel(model: TensorModel): void {
    this.parked.delete(model.name);
    this.tensors.set(model.name, model);
  }

  removeTensorModel(name: string): boolean {
    return this.tensors.delete(name);
  }

  tensorModelNames(): string[] {
    return [...this.tensors.keys()];
  }

  /**
   * A loaded model by name; tensor models take precedence, as upstream's dispatch does. Models
   * that are not Completions models (embeddings, images, videos) are invisible here, as upstream's.
   */
  resolve(name: string): ResolvedModel | undefined {
    const tensor = this.tensors.get(name);
    if (tensor) return { kind: 'tensor', model: tensor };
    const served = this.manager.has(name) ? this.manager.get(name) : undefined;
    return served?.card.modelType.includes('Completions') ? { kind: 'completions', served } : undefined;
  }

  /** The model, or NOT_FOUND `Model '<name>' not found` (UNAVAILABLE when it was unloaded). */
  require(name: string): ResolvedModel {
    this.manager.startup.assertReady();
    const found = this.resolve(name);
    if (found) return found;
    if (this.parked.has(name)) throw new UnavailableError(`Model '${name}' is unloaded`);
    throw new NotFoundError(`Model '${name}' not found`);
  }

  isReady(name: string): boolean {
    if (!this.manager.startup.ready) return false;
    const found = this.resolve(name);
    if (!found) return false;
    return found.kind === 'tensor' || found.served.router.instanceIds.length > 0;
  }

  anyReady(): boolean {
    if (!this.manager.startup.ready) return false;
    return this.tensorModelNames().length > 0 || this.manager.listReady().length > 0;
  }

  unload(name: string): void {
    const found = this.require(name);
    if (found.kind === 'tensor') this.tensors.delete(name);
    else this.manager.remove(name);
    this.parked.set(name, found);
  }

  /** Brings back an unloaded model and re-reads its repository config; NOT_FOUND when neither exists. */
  load(name: string): void {
    const fromRepo = this.repository?.reload(name);
    const parked = this.parked.get(name);
    if (parked) {
      if (parked.kind === 'tensor') this.tensors.set(name, parked.model);
      else this.manager.add(parked.served);
      this.parked.delete(name);
      return;
    }
    if (!fromRepo && !this.resolve(name)) throw new NotFoundError(`Model '${name}' not found in the model repository`);
  }

  /** Every known model: served, unloaded, and repository-only ones. */
  index(): ModelIndexEntry[] {
    const names = new Set<string>([
      ...this.tensors.keys(),
      ...this.manager.list().map((m) => m.name),
      ...this.parked.keys(),
      ...(this.repository?.list().map((e) => e.name) ?? []),
    ]);
    return [...names].sort().map((name) => {
      const version = this.repository?.get(name)?.versions.at(-1) ?? '1';
      if (this.isReady(name)) return { name, version, state: 'READY', reason: '' };
      const reason = this.parked.has(name)
        ? 'unloaded'
        : this.resolve(name)
          ? 'no ready worker'
          : 'no worker serves this model';
      return { name, version, state: 'UNAVAILABLE', reason };
    });
  }
}
