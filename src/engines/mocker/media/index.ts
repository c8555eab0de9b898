export { MockEmbeddingEngine, embedTokens, DEFAULT_EMBEDDING_DIMENSIONS } from './embedding-engine.js';
export { MockImageEngine } from './image-engine.js';
export { MockVideoEngine, DEFAULT_VIDEO_FPS, DEFAULT_VIDEO_SECONDS } from './video-engine.js';
export { encodePng, encodeApng, type RgbImage } from './png.js';
