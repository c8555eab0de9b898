// `dynamo-ts serve` and `dynamo-ts frontend` as commands: one process, or (--http-workers /
// --grpc-workers; the default in plan.ts) a pool of frontend processes sharing the listening
// ports. The library's startServe / startFrontend stay one process.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Config } from '../../config/index.js';
import type { Logger } from '../../observability/index.js';
import { raiseFdLimit } from '../fd-limit.js';
import { mallocTuningFor } from '../malloc-tuning.js';
import { startFrontend } from '../frontend/index.js';
import { startMocker } from '../mocker/index.js';
import { assertRouterSettings } from '../model-settings.js';
import { assertRouterStateSupported, frontendEventPlane } from '../router-state.js';
import { assertSingleProcess, startServe } from '../serve.js';
import type { StartupRetryOptions } from '../startup-retry.js';
import { isPoolProcess, runPoolProcess } from './child.js';
import { boundPorts, openListeners } from './listeners.js';
import type { ProcessSettings, WithoutPrimary } from './messages.js';
import { poolAggregators } from './metrics.js';
import { processPlan, type PoolShape, type ProcessPlan } from './plan.js';
import { FrontendPool } from './primary.js';
import { withResponseStore } from '../response-store.js';

export interface RunningCommand {
  stop(): Promise<void>;
  /** With --interactive: resolves when the user ends the terminal chat. */
  done?: Promise<void>;
}

type Command = (config: Config, logger: Logger, startup: StartupRetryOptions) => Promise<RunningCommand>;

/** The primary's part of a pooled command. */
type PoolCommand = (config: Config, logger: Logger, plan: ProcessPlan, startup: StartupRetryOptions) => Promise<RunningCommand>;

/** The same command in each pool process, the pool in the primary, or one process when the plan says so. */
function pooled(shape: PoolShape, single: Command, primary: PoolCommand): Command {
  return async (config, logger, startup) => {
    if (isPoolProcess()) return runPoolProcess(config, logger, startup);
    assertRouterSettings(config);
    // Before any fork: the pool's processes inherit the raised limit.
    await raiseFdLimit(config.frontendFdLimitTarget, logger);
    const plan = processPlan(config, shape);
    logger.info({ processes: plan.processes, grpcProcesses: plan.grpcProcesses, reason: plan.reason }, 'frontend processes');
    const own = withResponseStore(config, plan.processes, logger);
    return plan.processes === 1 ? single(own, logger, startup) : primary(own, logger, plan, startup);
  };
}

/** What a process of this pool runs, but for its listeners (the pool adds them). */
type SettingsOf = (index: number) => Omit<ProcessSettings, 'listeners' | 'withoutPrimary'>;

/** Opens the listening sockets (a port in use fails here, once), then starts the processes over them. */
async function startPool(config: Config, logger: Logger, plan: ProcessPlan, startup: StartupRetryOptions, withoutPrimary: WithoutPrimary, settingsOf: SettingsOf): Promise<FrontendPool> {
  const listeners = await openListeners(config, plan);
  const ports = boundPorts(config, listeners);
  return FrontendPool.start({
    processes: plan.processes,
    settingsOf: (index) => {
      const settings = settingsOf(index);
      // Every process keeps stored responses where the primary chose (withResponseStore).
      return { ...settings, overrides: { ...settings.overrides, responseStore: config.responseStore, ...ports }, withoutPrimary };
    },
    listeners,
    logger,
    aggregators: poolAggregators(config),
    // The processes' drain has its own deadline (DYN_HTTP_GRACEFUL_SHUTDOWN_TIMEOUT_SECS); this is a backstop.
    stopGraceMs: (config.httpGracefulShutdownTimeoutSecs + 15) * 1000,
    env: config.mallocTuning ? mallocTuningFor(process.env) : {},
    startup,
  });
}

/**
 * Every process is a whole frontend over the configured discovery; their kv routers share load by
 * replica sync. The workers run elsewhere, so a process whose primary died serves on.
 */
async function frontendPool(config: Config, logger: Logger, plan: ProcessPlan, startup: StartupRetryOptions): Promise<RunningCommand> {
  // Here, once, rather than in every process.
  assertRouterStateSupported(config, frontendEventPlane(config));
  const pool = await startPool(config, logger, plan, startup, 'serve-on', (index) => ({ index, plan, overrides: { routerReplicaSync: true } }));
  logger.info({ host: config.httpHost, port: pool.port, processes: plan.processes, grpcProcesses: plan.grpcProcesses, pids: pool.pids }, 'dynamo-ts frontend processes listening');
  return pool;
}

/**
 * `serve` with several frontend processes: the mockers run here, reachable from every process over
 * loopback (file discovery in a private temp dir, TCP request plane, ZMQ events); each process
 * takes connections once it sees the model with all its workers. The temp dir goes on stop.
 */
async function servePool(config: Config, logger: Logger, plan: ProcessPlan, startup: StartupRetryOptions): Promise<RunningCommand> {
  assertSingleProcess(config);
  assertRouterStateSupported(config, 'inproc');
  const dir = await mkdtemp(join(tmpdir(), 'dynamo-serve-'));
  const shared: Partial<Config> = {
    discoveryBackend: 'file',
    fileKv: dir,
    requestPlane: 'tcp',
    responsePlane: 'tcp',
    eventPlane: 'zmq',
    tcpRpcHost: '127.0.0.1',
  };
  const removeDir = (): Promise<void> => rm(dir, { recursive: true, force: true });
  let workers: Awaited<ReturnType<typeof startMocker>> | undefined;
  try {
    workers = await startMocker({ ...config, ...shared }, logger);
    const waitFor = { model: workers.card.displayName, instances: config.startupTime ? 0 : workers.runtimes.length };
    // The engines run here: a process whose primary died has nothing left to serve.
    const pool = await startPool(config, logger, plan, startup, 'stop', (index) => ({ index, plan, overrides: { ...shared, routerReplicaSync: true }, waitFor }));
    logger.info(
      { host: config.httpHost, port: pool.port, model: waitFor.model, workers: workers.runtimes.length, processes: plan.processes, pids: pool.pids },
      'dynamo-ts serve listening',
    );
    const running = workers;
    return {
      async stop() {
        // Draining first: in-flight requests finish on engines that are still running.
        await pool.stop();
        await running.stop();
        await removeDir();
      },
    };
  } catch (err) {
    await workers?.stop();
    await removeDir();
    throw err;
  }
}

export const serveCommand: Command = pooled('serve', (config, logger) => startServe(config, logger), servePool);
export const frontendCommand: Command = pooled('frontend', startFrontend, frontendPool);
