// A pino logger whose JSON lines land in `lines`, for tests that check what was logged.
import { Writable } from 'node:stream';
import { pino } from 'pino';
import type { Logger } from '../../src/observability/index.js';

export function capturingLogger(level: string, lines: Record<string, unknown>[]): Logger {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return pino({ level }, sink);
}
