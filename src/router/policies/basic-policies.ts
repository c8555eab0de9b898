// The router modes that need nothing but the instances: round-robin, random and direct. They never
// read the request, so they route any kind of request (LLM and tensor models alike).
import { ValidationError } from '../../protocols/index.js';
import type { AnyInstance } from '../worker-instance.js';
import type { RouterPolicy } from './policy.js';

export class RoundRobinPolicy implements RouterPolicy<unknown, unknown> {
  private next = 0;
  select<I extends AnyInstance>(instances: readonly I[]): I {
    const chosen = instances[this.next % instances.length]!;
    this.next = (this.next + 1) % instances.length;
    return chosen;
  }
}

export class RandomPolicy implements RouterPolicy<unknown, unknown> {
  select<I extends AnyInstance>(instances: readonly I[]): I {
    return instances[Math.floor(Math.random() * instances.length)]!;
  }
}

/** Only requests that name their instance (nvext.backend_instance_id or routing headers). */
export class DirectPolicy implements RouterPolicy<unknown, unknown> {
  select(): never {
    throw new ValidationError(
      'Validation: --router-mode direct needs a target instance: set nvext.backend_instance_id or the x-dynamo-worker-instance-id header',
    );
  }
}
