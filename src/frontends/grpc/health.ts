// grpc.health.v1.Health: SERVING while at least one model can serve (the ServerReady rule).

import type * as grpc from '@grpc/grpc-js';
import { NotFoundError } from '../../protocols/index.js';
import { wrapUnary, type WrapContext } from './call-wrappers.js';
import type { KserveModels } from '../../kserve/index.js';

const KNOWN = new Set(['', 'inference.GRPCInferenceService']);
const WATCH_POLL_MS = 1000;

export function healthHandlers(ctx: WrapContext, models: KserveModels): grpc.UntypedServiceImplementation {
  const status = (service: string): string => {
    if (!KNOWN.has(service)) throw new NotFoundError(`unknown service '${service}'`);
    return models.anyReady() ? 'SERVING' : 'NOT_SERVING';
  };
  return {
    Check: wrapUnary(ctx, 'Check', (req: { service: string }) => ({ status: status(req.service) })),
    Watch: (call: grpc.ServerWritableStream<{ service: string }, { status: string }>) => {
      let last = '';
      const send = (): void => {
        const now = KNOWN.has(call.request.service) ? status(call.request.service) : 'SERVICE_UNKNOWN';
        if (now !== last) call.write({ status: now });
        last = now;
      };
      send();
      const timer = setInterval(send, WATCH_POLL_MS);
      call.on('cancelled', () => clearInterval(timer));
    },
  };
}
