// --enable-rl on the mocker: each worker instance also serves `dyn://<namespace>.<component>.rl`,
// whose pause, resume and weight updates drive that instance's engines (all its data-parallel ranks).
import { ConfigError, type Config } from '../../config/index.js';
import { rlEndpointHandler, RlWorker } from '../../engines/rl/index.js';
import type { DistributedRuntime, EndpointHandler } from '../../runtime/index.js';
import type { EndpointId } from '../served-model.js';
import type { MockModel } from './mock-models.js';

/** One `rl` handler per runtime, in the same order; none without --enable-rl. */
export function rlHandlers(config: Config, model: MockModel, runtimes: readonly DistributedRuntime[], endpoint: EndpointId, modelName: string): EndpointHandler[] {
  if (!config.enableRl) return [];
  if (model.engines.length === 0) throw new ConfigError(`--enable-rl needs an LLM mocker (--model-type chat), not --model-type ${config.modelType}`);
  const ranks = model.engines.length / runtimes.length;
  return runtimes.map((rt, i) => {
    const engines = model.engines.slice(i * ranks, (i + 1) * ranks);
    const identity = { engine: 'mocker', model: modelName, namespace: endpoint.namespace, component: endpoint.component, instanceId: rt.instanceId };
    return rlEndpointHandler(new RlWorker(engines, identity));
  });
}
