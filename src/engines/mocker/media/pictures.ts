// What the image and video mockers draw: a gradient whose colours come from the prompt's seed, with
// a bar whose position moves with the frame number. Small, deterministic and visibly different per
// prompt, image index and frame.
import type { MediaData, MediaResponseFormat } from '../../../protocols/index.js';
import type { RgbImage } from './png.js';
import { seededUint32 } from './seeded.js';

/** Largest side the mocker renders: a requested size is scaled down to fit, keeping its aspect. */
export const MAX_MOCK_SIDE = 64;

/** The rendered size for a requested `WxH` (default square). */
export function mockSize(size: string | null | undefined): { width: number; height: number } {
  const m = size ? /^(\d+)x(\d+)$/.exec(size) : null;
  const [w, h] = m ? [Number(m[1]), Number(m[2])] : [MAX_MOCK_SIDE, MAX_MOCK_SIDE];
  const scale = Math.min(1, MAX_MOCK_SIDE / Math.max(w, h));
  return { width: Math.max(1, Math.round(w * scale)), height: Math.max(1, Math.round(h * scale)) };
}

export function drawPicture(seed: number, frame: number, width: number, height: number): RgbImage {
  const next = seededUint32(seed);
  const from = [next() & 255, next() & 255, next() & 255];
  const to = [next() & 255, next() & 255, next() & 255];
  const bar = frame % width;
  const pixels = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const t = (x + y) / Math.max(1, width + height - 2);
      const o = (y * width + x) * 3;
      for (let c = 0; c < 3; c++) pixels[o + c] = x === bar ? 255 - from[c]! : Math.round(from[c]! + (to[c]! - from[c]!) * t);
    }
  }
  return { width, height, pixels };
}

/** Bytes as the client asked: inline base64, or a `data:` URL (the mocker has nowhere to host files). */
export function mediaData(bytes: Buffer, mime: string, format: MediaResponseFormat | null | undefined): MediaData {
  const b64 = bytes.toString('base64');
  return format === 'b64_json' ? { b64_json: b64 } : { url: `data:${mime};base64,${b64}` };
}
