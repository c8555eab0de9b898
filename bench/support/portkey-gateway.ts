// The Portkey AI gateway (Node, Hono) for bench/compare.ts, installed from npm into a scratch
// folder of its own (never a dependency of this project) and started as a child process in front
// of an OpenAI-compatible server (its `x-portkey-custom-host` route). Version 1.15.2 streams only
// with @hono/node-server 1.13.x (newer versions fail every stream with `TypeError: immutable`), so
// the scratch install pins it for the gateway's own dependency too.
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const GATEWAY = '@portkey-ai/gateway';
const VERSION = '1.15.2';
const NODE_SERVER = '~1.13.0';
const FOLDER = path.join(tmpdir(), `dynamo-ts-bench-portkey-${VERSION}`);
const ENTRY = path.join(FOLDER, 'node_modules', GATEWAY, 'build/start-server.js');

/** The gateway's entry script, installed first if missing; null (with why) when npm cannot install it. */
export async function installPortkey(): Promise<{ entry: string } | { error: string }> {
  if (existsSync(ENTRY)) return { entry: ENTRY };
  mkdirSync(FOLDER, { recursive: true });
  const pkg = { name: 'bench-portkey', private: true, dependencies: { [GATEWAY]: VERSION, '@hono/node-server': NODE_SERVER }, overrides: { '@hono/node-server': NODE_SERVER } };
  writeFileSync(path.join(FOLDER, 'package.json'), JSON.stringify(pkg));
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  return new Promise((resolve) => {
    execFile(npm, ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'], { cwd: FOLDER, timeout: 300_000 }, (err, _out, errOut) => {
      if (err || !existsSync(ENTRY)) resolve({ error: `npm install of ${GATEWAY}@${VERSION} failed: ${(errOut || err?.message || 'no entry script').trim().split('\n').slice(-3).join(' ')}` });
      else resolve({ entry: ENTRY });
    });
  });
}

/** The headers that send a request through the gateway to the OpenAI-compatible server at `upstreamPort`. */
export function portkeyHeaders(upstreamPort: number): Record<string, string> {
  return { 'x-portkey-provider': 'openai', 'x-portkey-custom-host': `http://127.0.0.1:${upstreamPort}/v1`, authorization: 'Bearer bench' };
}

/** Starts the gateway on `port` (headless); the caller waits for it to answer. */
export function startPortkey(entry: string, port: number): ReturnType<typeof spawn> {
  return spawn(process.execPath, [entry, `--port=${port}`, '--headless'], { cwd: FOLDER, stdio: 'ignore' });
}
