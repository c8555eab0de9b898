// Extra routes from trusted code (`--frontend-route-extension`): upstream loads Python entry points,
// here each extension is a function exported by an ES module. It gets the live fastify instance, so
// it can add any route or plugin; its handlers share the server's JSON parsing, request ids and
// error envelope (throw the typed errors of protocols/errors.ts, as the built-in routes do).
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { ModelManager } from '../../models/index.js';

/** What a route extension is given. Small on purpose: the server, the served models and a logger. */
export interface RouteExtensionContext {
  /** The HTTP server, before it listens: `app.get(...)`, `app.post(...)`, `app.register(...)`. */
  readonly app: FastifyInstance;
  /** The served models by name: `get(name)` (a typed 404 when unknown), `list()`, `listReady()`. */
  readonly models: ModelManager;
  /** The frontend's logger, named after the extension. */
  readonly logger: Logger;
}

/** The exported function of an extension module; it may be async. */
export type RouteExtension = (context: RouteExtensionContext) => void | Promise<void>;

export interface NamedRouteExtension {
  /** `MODULE:FUNCTION` as configured: how errors and logs name it. */
  readonly name: string;
  readonly register: RouteExtension;
}
