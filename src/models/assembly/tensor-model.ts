// A tensor model (model type TensorBased, KServe) from its card: round-robin over its workers,
// registered with the frontend's KServe core instead of the ModelManager.
import type { TensorEngine, TensorModel } from '../../protocols/index.js';
import { TensorRouter, type InstanceHealth } from '../../router/index.js';
import { tensorModelConfigFromCard } from '../tensor-card.js';
import { lostWorkerOptions, type RouterSettings } from './model-router.js';

/** True for a card whose model type includes TensorBased. */
export function isTensorCard(cardJson: Record<string, unknown>): boolean {
  return typeof cardJson.model_type === 'string' && cardJson.model_type.split('|').some((t) => t.trim() === 'TensorBased');
}

/** The tensor model's router, and the model as the KServe core serves it. */
export function assembleTensorModel(
  name: string,
  cardJson: Record<string, unknown>,
  settings: Pick<RouterSettings, 'stallTimeoutMs'>,
  health: InstanceHealth,
): { router: TensorRouter; model: TensorModel } {
  const router = new TensorRouter(name, lostWorkerOptions(settings, health));
  return { router, model: { name, engine: routingErrorsInStream(router), config: tensorModelConfigFromCard(cardJson) } };
}

/**
 * A tensor model's engine reports routing errors (no live instance) from inside its stream, which
 * the gRPC tensor run answers as a stream error, as it always has; the router throws them at call.
 */
function routingErrorsInStream(engine: TensorEngine): TensorEngine {
  return {
    async *generate(request, ctx) {
      yield* engine.generate(request, ctx);
    },
  };
}

/** Where discovered tensor models go: the frontend's KServe core (gRPC and Triton HTTP). */
export interface TensorModelSink {
  addTensorModel(model: TensorModel): void;
  removeTensorModel(name: string): boolean;
}
