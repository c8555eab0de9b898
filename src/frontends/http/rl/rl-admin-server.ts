// The RL admin facade (DYN_ENABLE_RL_ENDPOINTS): POST /v1/rl/{pause,resume,init_transport,update_weights}
// on a listener of its own (DYN_RL_PORT), never on the main port. Each call fans one op out to every
// live `rl` worker endpoint through an RlFanout and answers in upstream's shapes; errors read
// `{"status":"error","error_type":...,"message":...}`. API keys guard it as they guard admin routes.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { ERROR_KINDS, INTERNAL_ERROR_MESSAGE, isDynamoError, type ErrorKind, type KeyCheck, type RlFanout } from '../../../protocols/index.js';
import { keyRefusal } from '../access-hook.js';
import { DEFAULT_UPLOAD_TIMEOUTS } from '../body/index.js';
import { stringifyExact } from '../exact-json.js';
import { createHttpServer, postRoute } from '../server.js';
import type { HttpTls } from '../service-options.js';
import { HttpServiceState } from '../service-state.js';
import { rlAnswer, RL_ROUTES, type RlRoute } from './rl-routes.js';

export interface RlAdminOptions {
  host: string;
  port: number;
  fanout: RlFanout;
  keys: KeyCheck;
  logger: Logger;
  tls?: HttpTls;
  bodyLimitMb: number;
}

/** The facade's `error_type` of each error kind: the fan-out's three, and the client's mistakes. */
const ERROR_TYPES: Partial<Readonly<Record<ErrorKind, string>>> = {
  unavailable: 'no_workers',
  conflict: 'membership_changed',
  bad_gateway: 'fanout_failed',
  validation: 'invalid_request',
  unprocessable: 'invalid_request',
  unsupported_media_type: 'invalid_request',
  payload_too_large: 'invalid_request',
};

/** The facade's error reply; unexpected errors never show their text. */
export function rlErrorReply(err: unknown): { status: number; body: Record<string, string> } {
  if (!isDynamoError(err)) return { status: ERROR_KINDS.internal.http, body: { status: 'error', error_type: 'internal', message: INTERNAL_ERROR_MESSAGE } };
  return { status: err.httpStatus, body: { status: 'error', error_type: ERROR_TYPES[err.kind] ?? err.kind, message: err.message } };
}

export const RL_PATH_PREFIX = '/v1/rl';

export class RlAdminServer {
  readonly app: FastifyInstance;

  constructor(private readonly opts: RlAdminOptions) {
    const state = new HttpServiceState(ERROR_KINDS.unavailable.http);
    const { bodyLimitMb, logger, tls } = opts;
    this.app = createHttpServer({ bodyLimitMb, uploadTimeouts: DEFAULT_UPLOAD_TIMEOUTS, overloadStatus: state.overloadStatus, logger, tls, envelope: rlErrorReply }, state);
    this.app.addHook('onRequest', async (req, reply) => {
      const refusal = keyRefusal(req, opts.keys, '`Authorization: Bearer <key>`');
      if (!refusal) return;
      const { status, body } = rlErrorReply(refusal);
      return reply.code(status).header('www-authenticate', 'Bearer').header('content-type', 'application/json').send(JSON.stringify(body));
    });
    for (const [name, route] of Object.entries(RL_ROUTES)) postRoute(this.app, `${RL_PATH_PREFIX}/${name}`, (req, reply) => this.serve(route, req, reply));
  }

  /** Starts listening; resolves to the bound port. */
  async listen(): Promise<number> {
    await this.app.listen({ host: this.opts.host, port: this.opts.port });
    const addr = this.app.server.address();
    return typeof addr === 'object' && addr ? addr.port : this.opts.port;
  }

  async close(): Promise<void> {
    this.app.server.closeAllConnections?.();
    await this.app.close();
  }

  private async serve(route: RlRoute, req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const { workerBody, echo } = route.input(req);
    const report = await this.opts.fanout.fanout(route.op, workerBody);
    const answer = rlAnswer(route, echo, report);
    const fields = { op: route.op, membership_epoch: report.epoch, workers: report.workers.length };
    if (answer.ok) req.log.info(fields, route.done);
    else req.log.warn({ ...fields, results: answer.body.workers }, `RL ${route.op}: some workers failed`);
    return reply.code(answer.status).header('content-type', 'application/json').send(stringifyExact(answer.body));
  }
}
