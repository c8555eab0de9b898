// A frontend and `worker openai` bridges in the test process, over one in-process runtime (as
// `serve` runs its mockers): the bridges register the stand-in upstreams, the frontend routes to them.
import { randomUUID } from 'node:crypto';
import { type Config } from '../../src/config/index.js';
import { runFrontend } from '../../src/launch/frontend/frontend.js';
import { bridgeModelFromConfig, runBridgeWorker } from '../../src/launch/index.js';
import { upstreamsFromFlags } from '../../src/launch/bridge/index.js';
import { createLogger } from '../../src/observability/index.js';
import { DistributedRuntime } from '../../src/runtime/index.js';
import { eventually } from './in-process.js';
import { IN_PROCESS_RUNTIME } from './in-process-runtime.js';
import { runConfig } from './run-config.js';

export const BRIDGED_MODEL = 'bridged-model';

function configOf(argv: string[]): Config {
  return runConfig(argv, {});
}

/** A frontend over its own in-process runtime (mem discovery, in-process planes). */
export async function startInProcessFrontend(frontendArgs: string[] = []) {
  const runtime = await DistributedRuntime.create({ ...IN_PROCESS_RUNTIME, memScope: `bridge-${randomUUID()}` });
  const config = configOf(['frontend', '--http-host', '127.0.0.1', '--http-port', '0', ...frontendArgs]);
  const frontend = await runFrontend(config, createLogger('silent'), runtime);
  return { frontend, runtime, baseUrl: `http://127.0.0.1:${frontend.port}` };
}

/**
 * `workerArgs` go to `worker openai` (its --upstream flags among them), `frontendArgs` to the
 * frontend. Resolves once the frontend routes to `ready` instances (default: every upstream).
 */
export async function startBridgedFrontend(workerArgs: string[], frontendArgs: string[] = [], ready?: number) {
  const logger = createLogger('silent');
  const { frontend, runtime, baseUrl } = await startInProcessFrontend(frontendArgs);
  const workerConfig = configOf(['worker', 'openai', '--model-name', BRIDGED_MODEL, '--upstream-health-interval', '0.05', ...workerArgs]);
  const specs = upstreamsFromFlags(workerConfig);
  const worker = await runBridgeWorker(bridgeModelFromConfig(workerConfig), specs, await runtime.sibling(), logger);
  const instances = (): number => (frontend.models.has(BRIDGED_MODEL) ? frontend.models.get(BRIDGED_MODEL).router.instanceIds.length : 0);
  await eventually(() => instances() === (ready ?? specs.length), 90_000, 'the bridged instances');
  return {
    frontend,
    worker,
    baseUrl,
    instances,
    async stop() {
      await frontend.stop();
      await worker.stop();
    },
  };
}
