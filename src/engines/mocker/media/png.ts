// Minimal PNG and animated PNG (APNG) encoders for the media mockers: 8-bit RGB, one IDAT (or
// fdAT) per frame, no filtering. Enough for browsers and image libraries to open the output.
import { crc32, deflateSync } from 'node:zlib';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Row-major RGB pixels. */
export interface RgbImage {
  width: number;
  height: number;
  pixels: Uint8Array;
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(data, crc32(head.subarray(4))), 0);
  return Buffer.concat([head, data, crc]);
}

function ihdr(width: number, height: number): Buffer {
  const data = Buffer.alloc(13);
  data.writeUInt32BE(width, 0);
  data.writeUInt32BE(height, 4);
  data[8] = 8; // bit depth
  data[9] = 2; // colour type RGB
  return chunk('IHDR', data);
}

/** Each row prefixed with filter type 0, then deflated. */
function compressed(image: RgbImage): Buffer {
  const stride = image.width * 3;
  const raw = Buffer.alloc((stride + 1) * image.height);
  for (let y = 0; y < image.height; y++) raw.set(image.pixels.subarray(y * stride, (y + 1) * stride), y * (stride + 1) + 1);
  return deflateSync(raw);
}

export function encodePng(image: RgbImage): Buffer {
  return Buffer.concat([SIGNATURE, ihdr(image.width, image.height), chunk('IDAT', compressed(image)), chunk('IEND', Buffer.alloc(0))]);
}

/** An APNG playing `frames` (all of one size) in a loop at `fps`. */
export function encodeApng(frames: readonly RgbImage[], fps: number): Buffer {
  const { width, height } = frames[0]!;
  const actl = Buffer.alloc(8);
  actl.writeUInt32BE(frames.length, 0);
  const parts = [SIGNATURE, ihdr(width, height), chunk('acTL', actl)];
  let sequence = 0;
  frames.forEach((frame, i) => {
    const fctl = Buffer.alloc(26);
    fctl.writeUInt32BE(sequence++, 0);
    fctl.writeUInt32BE(width, 4);
    fctl.writeUInt32BE(height, 8);
    fctl.writeUInt16BE(1, 20); // delay 1/fps s
    fctl.writeUInt16BE(fps, 22);
    parts.push(chunk('fcTL', fctl));
    const data = compressed(frame);
    if (i === 0) {
      parts.push(chunk('IDAT', data));
    } else {
      const seq = Buffer.alloc(4);
      seq.writeUInt32BE(sequence++, 0);
      parts.push(chunk('fdAT', Buffer.concat([seq, data])));
    }
  });
  parts.push(chunk('IEND', Buffer.alloc(0)));
  return Buffer.concat(parts);
}
