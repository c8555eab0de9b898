// The mocker's video model: `seconds × fps` (or `nvext.num_frames`) frames, streamed one per item as
// they are "rendered", then the whole clip as an animated PNG in a final `completed` item.
import { setTimeout as sleep } from 'node:timers/promises';
import type { GenerateContext, NvCreateVideoRequest, NvVideosResponse } from '../../../protocols/index.js';
import { encodeApng, encodePng, type RgbImage } from './png.js';
import { drawPicture, mediaData, mockSize } from './pictures.js';
import { seedOf } from './seeded.js';

export const DEFAULT_VIDEO_SECONDS = 1;
export const DEFAULT_VIDEO_FPS = 8;

export class MockVideoEngine {
  /** `frameMs`: simulated render time per frame. */
  constructor(private readonly frameMs = 0) {}

  async *generate(request: NvCreateVideoRequest, ctx: GenerateContext): AsyncGenerator<NvVideosResponse> {
    const started = performance.now();
    const fps = request.nvext?.fps ?? DEFAULT_VIDEO_FPS;
    const count = request.nvext?.num_frames ?? (request.seconds ?? DEFAULT_VIDEO_SECONDS) * fps;
    const { width, height } = mockSize(request.size);
    const seed = seedOf(request.prompt);
    const created = Math.floor(Date.now() / 1000);
    const item = (status: NvVideosResponse['status'], progress: number, data: NvVideosResponse['data']): NvVideosResponse => ({
      id: `video-${ctx.requestId}`,
      object: 'video',
      model: request.model,
      status,
      progress,
      created,
      data,
    });
    const frames: RgbImage[] = [];
    for (let i = 0; i < count; i++) {
      if (this.frameMs > 0) await sleep(this.frameMs, undefined, { signal: ctx.signal });
      if (ctx.signal.aborted) return;
      const frame = drawPicture(seed, i, width, height);
      frames.push(frame);
      yield item('in_progress', Math.floor(((i + 1) * 100) / (count + 1)), [mediaData(encodePng(frame), 'image/png', request.response_format)]);
    }
    yield {
      ...item('completed', 100, [mediaData(encodeApng(frames, fps), 'image/apng', request.response_format)]),
      inference_time_s: (performance.now() - started) / 1000,
    };
  }
}
