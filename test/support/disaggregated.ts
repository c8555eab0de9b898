// A disaggregated cluster inside the test process: one in-process runtime with prefill mockers,
// decode mockers and a frontend, wired exactly as `serve` wires its aggregated mockers.
import { randomUUID } from 'node:crypto';
import { type Config } from '../../src/config/index.js';
import { runFrontend, type FrontendService } from '../../src/launch/frontend/frontend.js';
import { runMockers, siblings, type RunningMocker } from '../../src/launch/mocker/mocker.js';
import { runtimeOptionsFromConfig } from '../../src/launch/index.js';
import { createLogger } from '../../src/observability/index.js';
import { DistributedRuntime } from '../../src/runtime/index.js';
import { eventually } from './in-process.js';
import { runConfig } from './run-config.js';

export const MODEL = 'Qwen/Qwen3-0.6B';

function serveConfig(args: string[]): Config {
  return { ...runConfig(['serve', '--http-host', '127.0.0.1', '--http-port', '0', ...args], {}), eventPlane: 'inproc' };
}

export interface DisaggregatedCluster {
  readonly baseUrl: string;
  readonly frontend: FrontendService;
  readonly prefill: RunningMocker | null;
  readonly decode: RunningMocker;
  stop(): Promise<void>;
}

export interface ClusterShape {
  prefillWorkers: number;
  decodeWorkers: number;
  /** Flags of every part (router and engine flags). */
  args?: string[];
  /** Flags of the prefill mockers only, and of the decode mockers only. */
  prefillArgs?: string[];
  decodeArgs?: string[];
  /** The router_config the prefill workers declare in their card (launch/worker-router-config.ts); absent: none. */
  prefillRouterConfig?: Record<string, unknown> | null;
}

/** Prefill and decode mockers and a frontend over one in-process runtime; resolves once the frontend routes through both pools. */
export async function startDisaggregated(shape: ClusterShape): Promise<DisaggregatedCluster> {
  const logger = createLogger('silent');
  const base = shape.args ?? [];
  const frontendConfig = serveConfig(base);
  const runtime = await DistributedRuntime.create({ ...runtimeOptionsFromConfig(frontendConfig, logger), memScope: `disagg-${randomUUID()}` });
  const prefill =
    shape.prefillWorkers > 0
      ? await runMockers(serveConfig([...base, '--disaggregation-mode', 'prefill', ...(shape.prefillArgs ?? [])]), logger, () => siblings(runtime, shape.prefillWorkers), shape.prefillRouterConfig ?? null)
      : null;
  const decode = await runMockers(serveConfig([...base, '--disaggregation-mode', 'decode', ...(shape.decodeArgs ?? [])]), logger, () => siblings(runtime, shape.decodeWorkers));
  const frontend = await runFrontend(frontendConfig, logger, runtime);
  await eventually(() => {
    if (!frontend.models.has(MODEL)) return false;
    const router = frontend.models.get(MODEL).router;
    return router.instanceIds.length === shape.decodeWorkers && router.disaggregation.active === shape.prefillWorkers > 0;
  }, 60_000, 'the disaggregated model');
  return {
    baseUrl: `http://127.0.0.1:${frontend.port}`,
    frontend,
    prefill,
    decode,
    async stop() {
      await frontend.stop();
      await prefill?.stop();
      await decode.stop();
    },
  };
}
