// `/openapi.json` and `/docs` (reference/http.md §2.6). The document is generated from the schemas
// the routes register with (route-docs.ts), so it lists every route at its configured path. Swagger
// UI is served from the installed package's own files: no CDN.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { HIDDEN } from './route-docs.js';

export interface OpenApiOptions {
  documentPath: string;
  docsPath: string;
  /** The package version, shown as the API version. */
  version: string;
}

/** Register before any route: the document collects the routes added after it. */
export function registerOpenApi(app: FastifyInstance, opts: OpenApiOptions): void {
  void app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'NVIDIA Dynamo OpenAI Frontend',
        description: 'OpenAI-compatible inference API of dynamo-ts. Errors before a stream starts are flat `{message, type, code}` objects.',
        version: opts.version,
      },
    },
  });
  void app.register(swaggerUi, { routePrefix: opts.docsPath, uiConfig: { docExpansion: 'list', deepLinking: true } });
  app.get(opts.documentPath, HIDDEN, async (_req, reply) => reply.header('content-type', 'application/json').send(JSON.stringify(app.swagger())));
}
