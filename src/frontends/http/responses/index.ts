export { registerResponsesRoute, type ResponsesRouteOptions } from './responses-route.js';
