// What one route of the service is: a file that registers its handlers, each with its OpenAPI doc,
// at the path the service gives it (its row in protocols/http-routes.ts names the option that
// moves it), and may take bodies of its own size. The service mounts every route of the table in
// routes.ts; a route behind a switch (Anthropic, the admin and dashboard routes, Triton) reads its
// switch from the settings and registers nothing while it is off, so its paths answer 404.
import type { FastifyInstance } from 'fastify';
import type { GenerationRouteOptions, ModelRouteContext } from './model-route/index.js';
import { ownBodyLimit } from './server.js';
import type { HttpServiceOptions } from './service-options.js';

export interface RouteContext extends ModelRouteContext {
  /** The service's settings. */
  readonly options: HttpServiceOptions;
  /** What every generating route is given: stream keep-alive, pre-commit peek, timings log. */
  readonly generation: GenerationRouteOptions;
}

export interface HttpRoute {
  /** The largest body its handlers take, in MB; the service's DYN_HTTP_BODY_LIMIT_MB when absent. */
  readonly bodyLimitMb?: number;
  /**
   * Mounted on the server itself, before every other route: the API description, whose plugin
   * collects the routes registered after it (route extensions' included).
   */
  readonly collectsRoutes?: true;
  register(app: FastifyInstance, path: string, ctx: RouteContext): void;
}

const MIB = 1024 * 1024;

/** Registers `route` at `path`; a route with a body limit of its own gets a scope that applies it to each of its handlers. */
export function mountRoute(app: FastifyInstance, path: string, route: HttpRoute, ctx: RouteContext): void {
  const limitMb = route.bodyLimitMb;
  if (limitMb === undefined) {
    route.register(app, path, ctx);
    return;
  }
  const limit = Math.max(1, Math.floor(limitMb * MIB));
  void app.register(async (own) => {
    ownBodyLimit(own, limit);
    own.addHook('onRoute', (options) => {
      options.bodyLimit ??= limit;
    });
    route.register(own, path, ctx);
  });
}
