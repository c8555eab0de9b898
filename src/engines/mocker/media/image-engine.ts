// The mocker's image model: `n` small deterministic PNGs per request, one NvImagesResponse.
import type { GenerateContext, NvCreateImageRequest, NvImagesResponse } from '../../../protocols/index.js';
import { encodePng } from './png.js';
import { drawPicture, mediaData, mockSize } from './pictures.js';
import { seedOf } from './seeded.js';

export class MockImageEngine {
  async *generate(request: NvCreateImageRequest, _ctx: GenerateContext): AsyncGenerator<NvImagesResponse> {
    const { width, height } = mockSize(request.size);
    const data = Array.from({ length: request.n ?? 1 }, (_, i) => ({
      ...mediaData(encodePng(drawPicture(seedOf(`${i}:${request.prompt}`), 0, width, height)), 'image/png', request.response_format),
      revised_prompt: request.prompt,
    }));
    yield { created: Math.floor(Date.now() / 1000), data };
  }
}
