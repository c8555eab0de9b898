import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

/** The repository root, from dist/test/support/. */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const BIN = path.join(REPO_ROOT, 'bin/dynamo-ts.js');

/** A port that was free a moment ago on loopback. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

export interface RunningProcess {
  proc: ChildProcess;
  output(): string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit code. */
  stop(graceMs?: number): Promise<number | null>;
  exited: Promise<number | null>;
}

/** `bin` lets a benchmark start another checkout's build beside this one; `nodeArgs` go to node itself (e.g. --cpu-prof). */
export function startProcess(args: string[], env: Record<string, string> = {}, bin = BIN, nodeArgs: readonly string[] = []): RunningProcess {
  const proc = spawn(process.execPath, [...nodeArgs, bin, ...args], {
    cwd: path.resolve(path.dirname(bin), '..'),
    // One frontend process unless a test asks for a pool: the default past two cores would fork on every start.
    env: { ...process.env, DYN_HTTP_WORKERS: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  return {
    proc,
    output: () => out,
    exited,
    async stop(graceMs = 5000) {
      if (proc.exitCode !== null || proc.signalCode !== null) return proc.exitCode;
      proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/** Whether process `pid` still runs. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Run the CLI to completion (for --help, bad flags, ...). */
export async function runCli(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; output: string }> {
  const p = startProcess(args, env);
  const code = await p.exited;
  return { code, output: p.output() };
}

/** Poll until `GET /v1/models` lists `model` (the upstream harnesses' readiness convention). */
export async function waitForModel(baseUrl: string, model: string, proc?: RunningProcess, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc && proc.proc.exitCode !== null) throw new Error(`process exited early:\n${proc.output()}`);
    try {
      const res = await fetch(`${baseUrl}/v1/models`);
      if (res.ok) {
        const body = (await res.json()) as { data: { id: string }[] };
        if (body.data.some((m) => m.id === model)) return;
      }
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`model ${model} not ready after ${timeoutMs} ms${proc ? `:\n${proc.output()}` : ''}`);
}

/** Start `dynamo-ts serve` on a free port and wait for its model. */
export async function startServe(extraArgs: string[] = [], env: Record<string, string> = {}, model = 'Qwen/Qwen3-0.6B') {
  const port = await freePort();
  const proc = startProcess(['serve', '--http-host', '127.0.0.1', '--http-port', String(port), ...extraArgs], env);
  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    await waitForModel(baseUrl, model, proc);
  } catch (err) {
    // A server that never got ready is stopped here: the caller has no handle to stop it with.
    await proc.stop();
    throw err;
  }
  return { proc, port, baseUrl };
}
