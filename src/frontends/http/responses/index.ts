export { registerResponsesRoute, type ResponsesRouteOptions } from './responses-route.js';
export { newItemId } from './response-object.js';
