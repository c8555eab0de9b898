import type { Config } from '../../src/config/index.js';
import { startServe } from '../../src/launch/index.js';
import { createLogger } from '../../src/observability/index.js';
import { fetchFor, injectedOrigin } from './injected-fetch.js';
import { runConfig } from './run-config.js';

/** `dynamo-ts serve` inside the test process, on a free loopback port, logging nothing. */
export async function serveInProcess(args: string[] = [], env: Record<string, string> = {}) {
  const service = await startServe(runConfig(['serve', '--http-host', '127.0.0.1', '--http-port', '0', ...args], env), createLogger('silent'));
  return { service, baseUrl: `http://127.0.0.1:${service.port}` };
}

/**
 * The same `serve` bound to no port: `fetch` (and `postJson` on `baseUrl`) hand requests to fastify's `inject()`.
 * Pass `fetch` to SDK clients and use it in place of the global one.
 */
export async function serveInjected(args: string[] = [], env: Record<string, string> = {}) {
  const service = await startServe(runConfig(['serve', ...args], env), createLogger('silent'), { listen: false });
  return { service, ...injectedOrigin(service.http.app) };
}

export async function postJson(baseUrl: string, path: string, body: unknown, headers: Record<string, string> = {}) {
  return fetchFor(baseUrl)(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** Poll `check` until it holds, or fail after `timeoutMs`. */
export async function eventually(check: () => boolean, timeoutMs = 5000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Env that puts a started frontend or mocker on the process's shared in-memory discovery and in-process planes. */
export const IN_PROCESS_ENV = { DYN_DISCOVERY_BACKEND: 'mem', DYN_REQUEST_PLANE: 'inproc', DYN_RESPONSE_PLANE: 'inproc', DYN_EVENT_PLANE: 'inproc' };

/** The config `dynamo-ts <argv>` would run with, over IN_PROCESS_ENV. */
export function inProcessConfig(argv: string[]): Config {
  return runConfig(argv, IN_PROCESS_ENV);
}
