// A discovered tensor model as the gRPC frontend serves it: one TensorEngine over the model's live
// worker instances, taking them in turn (upstream's default round-robin push router).
import type { NvCreateTensorRequest, NvCreateTensorResponse, TensorEngine } from '../frontends/grpc/index.js';
import { modelNotReadyError, type GenerateContext } from '../protocols/index.js';

export class TensorRouter implements TensorEngine {
  private instances: readonly TensorEngine[] = [];
  private next = 0;

  constructor(readonly name: string) {}

  setInstances(instances: readonly TensorEngine[]): void {
    this.instances = instances;
  }

  get instanceCount(): number {
    return this.instances.length;
  }

  async *generate(request: NvCreateTensorRequest, ctx: GenerateContext): AsyncGenerator<NvCreateTensorResponse> {
    if (this.instances.length === 0) throw modelNotReadyError(this.name);
    const target = this.instances[this.next++ % this.instances.length]!;
    yield* target.generate(request, ctx);
  }
}
