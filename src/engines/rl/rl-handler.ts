import type { EndpointHandler, RequestContext } from '../../runtime/index.js';
import type { RlWorker } from './rl-worker.js';

/**
 * Serves `worker` as an endpoint handler: one `{data: payload}` item per request. Payloads name
 * instance ids (u64), so the plane carries its integers exactly.
 */
export function rlEndpointHandler(worker: RlWorker): EndpointHandler {
  async function* serveRl(request: unknown, _ctx: RequestContext): AsyncGenerator<unknown> {
    yield { data: await worker.handle(request) };
  }
  return Object.assign(serveRl, { exactIntegers: true as const });
}
