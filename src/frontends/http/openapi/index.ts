export { registerOpenApi } from './openapi.js';
export { HIDDEN, INFERENCE_ERRORS, adminError, documented, json, jsonOrStream, type ResponseDoc, type RouteDoc } from './route-docs.js';
