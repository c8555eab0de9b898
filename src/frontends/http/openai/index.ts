export { EMBEDDINGS_ROUTE } from './embeddings-route.js';
export { EMBEDDINGS_DOC, IMAGES_DOC, VIDEOS_DOC, VIDEOS_STREAM_DOC } from './media-route-docs.js';
export { IMAGES_ROUTE, VIDEOS_ROUTE, VIDEOS_STREAM_ROUTE } from './media-routes.js';
export { type ReasoningField } from './openai-chunks.js';
export { registerOpenAiRoutes } from './openai-routes.js';
