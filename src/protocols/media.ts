// Wire types of the model types that are not token generators: embeddings, images and videos.
// They follow upstream's worker protocol (lib/llm/src/protocols): the frontend tokenizes embedding
// inputs and sends a PreprocessedEmbeddingRequest, the worker answers one EmbeddingsEngineOutput;
// image and video requests are forwarded as the client sent them (NvCreateImageRequest,
// NvCreateVideoRequest) and answered with NvImagesResponse / NvVideosResponse items. Every item
// travels in the Annotated envelope like LLM outputs (docs/runtime-protocol.md).

export interface PreprocessedEmbeddingRequest {
  /** One token id list per input. */
  token_ids: number[][];
  model: string;
  encoding_format?: 'float' | 'base64' | null;
  dimensions?: number | null;
  mdc_sum?: string | null;
  annotations: string[];
}

/** One per request. Embeddings are float lists; a base64 string (little-endian float32) is accepted too. */
export interface EmbeddingsEngineOutput {
  embeddings: (number[] | string)[];
  prompt_tokens: number;
  total_tokens: number;
}

export type MediaResponseFormat = 'url' | 'b64_json';

export interface NvCreateImageRequest {
  prompt: string;
  model: string;
  n?: number | null;
  size?: string | null;
  response_format?: MediaResponseFormat | null;
  quality?: string | null;
  style?: string | null;
  user?: string | null;
  nvext?: Record<string, unknown> | null;
}

export interface MediaData {
  url?: string;
  b64_json?: string;
  revised_prompt?: string;
}

export interface NvImagesResponse {
  created: number;
  data: MediaData[];
}

export interface NvCreateVideoRequest {
  prompt: string;
  model: string;
  seconds?: number | null;
  size?: string | null;
  response_format?: MediaResponseFormat | null;
  user?: string | null;
  nvext?: { fps?: number | null; num_frames?: number | null; [key: string]: unknown } | null;
}

/**
 * One video stream item. Workers send `in_progress` items (one frame each in `data`) and end with
 * one `completed` item holding the whole video.
 */
export interface NvVideosResponse {
  id: string;
  object: 'video';
  model: string;
  status: 'in_progress' | 'completed' | 'failed';
  progress: number;
  created: number;
  data: MediaData[];
  error?: string;
  inference_time_s?: number;
}

/** Request and output type of each media kind, as its router and worker handler see them. */
export interface MediaWire {
  embeddings: { request: PreprocessedEmbeddingRequest; output: EmbeddingsEngineOutput };
  images: { request: NvCreateImageRequest; output: NvImagesResponse };
  videos: { request: NvCreateVideoRequest; output: NvVideosResponse };
}

export type MediaKind = keyof MediaWire;
