// OpenAI's API: chat, completions, embeddings, images and the model list, and the video routes
// beside them; each route in its own file.
import type { HttpRouteName } from '../../../protocols/index.js';
import type { HttpRoute } from '../http-route.js';
import { CHAT_ROUTE } from './chat.js';
import { COMPLETIONS_ROUTE } from './completions.js';
import { EMBEDDINGS_ROUTE } from './embeddings.js';
import { IMAGES_ROUTE } from './images.js';
import { MODELS_ROUTE } from './models.js';
import { VIDEOS_STREAM_ROUTE } from './videos-stream.js';
import { VIDEOS_ROUTE } from './videos.js';

export const OPENAI_ROUTES = {
  chat: CHAT_ROUTE,
  completions: COMPLETIONS_ROUTE,
  embeddings: EMBEDDINGS_ROUTE,
  images: IMAGES_ROUTE,
  videos: VIDEOS_ROUTE,
  videosStream: VIDEOS_STREAM_ROUTE,
  models: MODELS_ROUTE,
} satisfies Partial<Record<HttpRouteName, HttpRoute>>;

export type { ReasoningField } from './openai-chunks.js';
