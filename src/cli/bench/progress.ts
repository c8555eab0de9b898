// A one-line progress bar on stderr, drawn only when stderr is a terminal (at most 10 times a second).
import type { Outcome } from './clients/index.js';

export interface Progress {
  /** Starts a run's bar: `total` requests (or `durationS` seconds) labelled `label`. */
  begin(label: string, total: number, durationS: number): void;
  record(outcome: Outcome): void;
  end(): void;
}

const WIDTH = 30;
const SILENT: Progress = { begin() {}, record() {}, end() {} };

export function progressBar(stream: NodeJS.WriteStream = process.stderr): Progress {
  if (stream.isTTY !== true) return SILENT;
  let label = '';
  let total = Infinity;
  let durationS = Infinity;
  let done = 0;
  let failed = 0;
  let startMs = 0;
  let drawnMs = 0;
  const draw = () => {
    const elapsedS = (performance.now() - startMs) / 1000;
    const share = Math.min(1, Math.max(done / total, elapsedS / durationS));
    const filled = Math.round(share * WIDTH);
    const rate = elapsedS > 0 ? (done / elapsedS).toFixed(1) : '0.0';
    const count = Number.isFinite(total) ? `${done}/${total}` : `${done}`;
    stream.write(`\r${label} [${'#'.repeat(filled)}${'.'.repeat(WIDTH - filled)}] ${count} req ${rate} req/s ${failed} failed\x1b[K`);
    drawnMs = performance.now();
  };
  return {
    begin(name, requests, seconds) {
      label = name;
      total = requests;
      durationS = seconds;
      done = 0;
      failed = 0;
      startMs = performance.now();
      draw();
    },
    record(outcome) {
      done++;
      if (outcome.error !== undefined) failed++;
      if (performance.now() - drawnMs >= 100) draw();
    },
    end() {
      draw();
      stream.write('\n');
    },
  };
}
