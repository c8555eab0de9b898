// `/docs`: Swagger UI over /openapi.json, served from the installed package's own files (no CDN).
import swaggerUi from '@fastify/swagger-ui';
import type { HttpRoute } from '../http-route.js';

export const DOCS_ROUTE: HttpRoute = {
  register(app, path) {
    void app.register(swaggerUi, { routePrefix: path, uiConfig: { docExpansion: 'list', deepLinking: true } });
  },
};
