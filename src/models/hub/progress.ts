// A one-line progress bar per downloaded file, redrawn in place; only on a terminal, so logs and
// pipes never see carriage returns.

export interface DownloadProgress {
  /** A file starts downloading; returns the callback for its bytes and one to call when it is stored. */
  file(name: string): { bytes(received: number, total: number | null): void; done(): void };
}

export const SILENT_PROGRESS: DownloadProgress = { file: () => ({ bytes: () => {}, done: () => {} }) };

const BAR_WIDTH = 24;
/** Redraws at most this often (ms): a fast local hub would otherwise flood the terminal. */
const REDRAW_MS = 100;

export interface ProgressStream {
  isTTY?: boolean;
  write(text: string): unknown;
}

/** The bar on `stream` when it is a terminal, else nothing. */
export function terminalProgress(stream: ProgressStream, repo: string): DownloadProgress {
  if (stream.isTTY !== true) return SILENT_PROGRESS;
  return {
    file(name) {
      let last = 0;
      let state: [number, number | null] = [0, null];
      const draw = (): void => {
        stream.write(`\r${progressLine(`${repo} ${name}`, ...state)}`);
      };
      return {
        bytes(received, total) {
          state = [received, total];
          const now = Date.now();
          if (now - last < REDRAW_MS) return;
          last = now;
          draw();
        },
        done() {
          draw();
          stream.write('\n');
        },
      };
    },
  };
}

export function progressLine(label: string, received: number, total: number | null): string {
  if (total === null || total <= 0) return `${label} ${megabytes(received)}`;
  const share = Math.min(1, received / total);
  const filled = Math.round(share * BAR_WIDTH);
  return `${label} [${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}] ${Math.round(share * 100)}% ${megabytes(received)}/${megabytes(total)}`;
}

function megabytes(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}
