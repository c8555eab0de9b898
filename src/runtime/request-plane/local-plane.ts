// The in-process request plane: handlers are called directly, with no encoding. Used by `serve` and
// by tests; addresses are `{instance_id:x}/{endpoint}` in a process-wide table.
import { WorkerLostError } from '../../protocols/index.js';
import type { EndpointId, Transport } from '../discovery/index.js';
import { instancePath, type CallContext, type EndpointHandler, type RequestPlaneServer } from './types.js';

const handlers = new Map<string, EndpointHandler>();

export class LocalRequestPlaneServer implements RequestPlaneServer {
  readonly kind = 'inproc';
  private readonly mine = new Set<string>();

  async serve(endpoint: EndpointId, instanceId: bigint, handler: EndpointHandler): Promise<Transport> {
    const path = instancePath(endpoint.endpoint, instanceId);
    handlers.set(path, handler);
    this.mine.add(path);
    return { inproc: path };
  }

  unserve(endpoint: EndpointId, instanceId: bigint): void {
    const path = instancePath(endpoint.endpoint, instanceId);
    handlers.delete(path);
    this.mine.delete(path);
  }

  async close(): Promise<void> {
    for (const path of this.mine) handlers.delete(path);
    this.mine.clear();
  }
}

/** The handler an in-process address reaches, while it is served. */
export function localHandler(path: string): EndpointHandler | undefined {
  return handlers.get(path);
}

export function streamLocal(path: string, request: unknown, ctx: CallContext): AsyncIterable<unknown> {
  const handler = handlers.get(path);
  if (!handler) throw new WorkerLostError(`no in-process endpoint ${path}`);
  return handler(request, { requestId: ctx.requestId, signal: ctx.signal, headers: ctx.headers ?? {}, metadata: ctx.metadata });
}
