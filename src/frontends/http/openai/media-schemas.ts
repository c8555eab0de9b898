// Request fields the media routes (embeddings, images, videos) describe alike in /openapi.json.
import type { JsonSchema } from '../../../pipeline/index.js';

export const MODEL: JsonSchema = { type: 'string', description: 'A served model of the route\'s type' };
export const PROMPT: JsonSchema = { type: 'string', description: 'What to generate' };
export const RESPONSE_FORMAT: JsonSchema = { type: 'string', enum: ['url', 'b64_json'], default: 'url', description: '`url` answers a `data:` URL' };
