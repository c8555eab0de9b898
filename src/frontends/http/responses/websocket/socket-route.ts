// The WebSocket mode of the Responses API: a GET upgrade at the Responses path opens a connection
// (responses-connection.ts); a GET that is no upgrade answers 405 as before. The upgrade is an HTTP
// request to the service like any other until it is accepted: the API-key hook refuses it with a
// 401, a draining service with a 503, so a refused client never gets a socket. The WebSocket
// plugin lives in a scope of its own, so no other route is touched by it.

import websocket from '@fastify/websocket';
import type { FastifyInstance } from 'fastify';
import type { RouteContext } from '../../http-route.js';
import { HIDDEN } from '../../openapi/index.js';
import { postOnly } from '../../server.js';
import type { ResponsesRoute } from '../responses-route.js';
import type { StoredResponses } from '../stored-responses.js';
import { ResponsesConnection } from './responses-connection.js';

/** The bounds of every connection (--responses-ws-max-message-mb, --responses-ws-idle-timeout-secs). */
export interface ResponsesSocketOptions {
  /** The largest message a client may send, in MB; a larger one closes the connection (1009). */
  maxMessageMb: number;
  /** A connection with nothing to answer closes after this long without an event (1000). */
  idleTimeoutSecs: number;
}

/** The options' defaults, for a service made without them (library use). */
export const DEFAULT_RESPONSES_SOCKET: ResponsesSocketOptions = { maxMessageMb: 45, idleTimeoutSecs: 3600 };

const MIB = 1024 * 1024;

/** The GET at `path`: WebSocket mode on an upgrade, 405 otherwise. */
export function registerResponsesSocket(app: FastifyInstance, path: string, ctx: RouteContext, route: ResponsesRoute, stored: StoredResponses): void {
  const options = ctx.options.responsesWebSocket ?? DEFAULT_RESPONSES_SOCKET;
  const shared = { ctx, route, stored, path, idleTimeoutMs: options.idleTimeoutSecs * 1000 };
  const open = new Set<ResponsesConnection>();
  void app.register(async (scope) => {
    await scope.register(websocket, {
      options: { maxPayload: Math.floor(options.maxMessageMb * MIB) },
      // A client that breaks the protocol or sends too much is closed by `ws` with the code that says so.
      errorHandler: (err, _socket, req) => req.log.debug({ err }, 'responses websocket error'),
      preClose: async () => {
        for (const connection of open) connection.shutdown();
      },
    });
    scope.route({
      method: 'GET',
      url: path,
      ...HIDDEN,
      preHandler: async (req) => {
        if (req.ws) ctx.state.assertServing();
      },
      handler: postOnly(path),
      wsHandler: (socket, req) => {
        const connection = new ResponsesConnection(socket, req, shared);
        open.add(connection);
        socket.once('close', () => open.delete(connection));
      },
    });
  });
}
