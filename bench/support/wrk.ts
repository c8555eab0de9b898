// Unary load with wrk (Debian's `wrk`, a C client: a Node client caps nginx at about half of what
// it serves), when it is installed: POSTs of one JSON body over `connections` kept-alive
// connections for `seconds`, the body and headers given to wrk by a Lua script in a temp folder.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const WRK = '/usr/bin/wrk';

export const wrkInstalled = (): boolean => existsSync(WRK);

export interface WrkResult {
  requests: number;
  seconds: number;
  /** Answers that were not 2xx/3xx, and socket errors. */
  failures: number;
}

/** A Lua string literal of `text`. */
const lua = (text: string): string => `"${text.replace(/[\\"]/g, (c) => `\\${c}`).replace(/\n/g, '\\n')}"`;

export function runWrk(url: string, body: string, headers: Record<string, string>, connections: number, seconds: number): Promise<WrkResult> {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-wrk-'));
  const script = path.join(dir, 'post.lua');
  const lines = ['wrk.method = "POST"', `wrk.body = ${lua(body)}`, 'wrk.headers["Content-Type"] = "application/json"'];
  for (const [k, v] of Object.entries(headers)) lines.push(`wrk.headers[${lua(k)}] = ${lua(v)}`);
  writeFileSync(script, `${lines.join('\n')}\n`);
  const args = ['-t1', `-c${connections}`, `-d${seconds}s`, '--timeout', '10s', '-s', script, url];
  return new Promise((resolve, reject) => {
    execFile(WRK, args, { encoding: 'utf8' }, (err, out) => {
      rmSync(dir, { recursive: true, force: true });
      if (err) return reject(new Error(`wrk failed: ${err.message}\n${out}`));
      // "  12345 requests in 3.00s, ..." and optional "Non-2xx or 3xx responses: N", "Socket errors: connect A, read B, write C, timeout D".
      const done = /(\d+) requests in ([\d.]+)(ms|s|m)/.exec(out);
      if (!done) return reject(new Error(`cannot read wrk's output:\n${out}`));
      const unit = { ms: 0.001, s: 1, m: 60 }[done[3] as 'ms' | 's' | 'm'];
      const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
      const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
      const socketErrors = socket ? socket.slice(1).reduce((n, x) => n + Number(x), 0) : 0;
      resolve({ requests: Number(done[1]), seconds: Number(done[2]) * unit, failures: non2xx + socketErrors });
    });
  });
}
