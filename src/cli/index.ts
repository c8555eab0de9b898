import { ConfigError, parseCommandLine, writeConfigDump, type Config, type ConfigSources, type Subcommand } from '../config/index.js';
import {
  frontendCommand,
  isPoolProcess,
  resolveModelSource,
  serveCommand,
  startMocker,
  startOpenAiWorker,
  startRetrying,
  startupFailureLine,
  StartupToldError,
  type StartupRetryOptions,
  workerRouterConfig,
} from '../launch/index.js';
import { DynamoError } from '../protocols/index.js';
import { createLogger, logFormatFor, type Logger } from '../observability/index.js';
import { progressBar, runBench } from './bench/index.js';

/**
 * A running service; `done` resolves when it ends by itself (the --interactive chat was closed).
 * `startup` is for a starter that waits on other processes (a frontend pool): their retries and shutdown.
 */
type Starter = (config: Config, logger: Logger, startup: StartupRetryOptions) => Promise<{ stop(): Promise<void>; done?: Promise<void> }>;

/** Runs a subcommand to its end; resolves to the exit code. `sources`: where each setting came from. */
type Runner = (config: Config, logger: Logger, sources: ConfigSources) => Promise<number>;

const RUNNERS: Record<Subcommand, Runner> = {
  serve: (config, logger) => runService(serveCommand, config, logger),
  frontend: (config, logger) => runService(frontendCommand, config, logger),
  // Workers declare a router config in their card only when given --router-mode themselves.
  mocker: (config, logger, sources) => runService((ready, log) => startMocker(ready, log, workerRouterConfig(ready, sources)), config, logger),
  worker: (config, logger, sources) => runService((ready, log) => startOpenAiWorker(ready, log, workerRouterConfig(ready, sources)), config, logger),
  bench: benchCommand,
};

/** The CLI: parse, then run the subcommand until SIGINT/SIGTERM. Resolves to the exit code. */
export async function main(argv: string[], env: Record<string, string | undefined>): Promise<number> {
  try {
    return await run(argv, env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`error: ${err.message}\n`);
    return err.exitCode;
  }
}

async function run(argv: string[], env: Record<string, string | undefined>): Promise<number> {
  const parsed = parseCommandLine(argv, env);
  if (parsed.kind !== 'run') {
    process.stdout.write(parsed.text.endsWith('\n') ? parsed.text : `${parsed.text}\n`);
    return 0;
  }
  const { command, config, sources } = parsed;
  // The terminal chat shares the terminal with stderr: keep info lines out of it unless asked for.
  const quiet = config.interactive && sources.log === 'default';
  const jsonl = sources.loggingJsonl === 'default' ? undefined : config.loggingJsonl;
  const logger = createLogger(quiet ? 'warn' : config.log, { format: logFormatFor(jsonl, process.stdout.isTTY === true) });
  // A pool's processes run this same command line: the primary has warned about it already.
  if (!isPoolProcess()) for (const warning of parsed.warnings) logger.warn(warning);
  if (config.dumpConfigTo) await writeConfigDump(config.dumpConfigTo, config);
  return RUNNERS[command](config, logger, sources);
}

/** Starts a service and keeps it up until SIGINT/SIGTERM or until it ends by itself. */
async function runService(start: Starter, config: Config, logger: Logger): Promise<number> {
  // Listening before startup: a SIGTERM while workers register still unregisters them.
  const shutdown = new AbortController();
  const signalled = waitForShutdownSignal(logger).then(() => shutdown.abort());
  const retry: StartupRetryOptions = {
    retrySecs: config.connectRetrySecs,
    tell: (line: string) => process.stderr.write(`warning: ${line}\n`),
    signal: shutdown.signal,
  };
  let service: Awaited<ReturnType<Starter>>;
  let resolvingModel = true;
  try {
    // A hub repository id becomes a local folder first: its typed errors (not found, gated, not cached offline) are one line.
    const ready = await startRetrying(() => resolveModelSource(config, { progressTo: process.stderr, tell: (line) => logger.info(line) }), retry);
    resolvingModel = false;
    service = await startRetrying(() => start(ready, logger, retry), retry);
  } catch (err) {
    if (err instanceof StartupToldError) return 1;
    const line = startupFailureLine(err) ?? (resolvingModel && err instanceof DynamoError ? err.message : null);
    if (line === null) throw err;
    process.stderr.write(`error: ${line}\n`);
    if (/^(debug|trace)\b/.test(config.log)) process.stderr.write(`${(err as Error).stack}\n`);
    return 1;
  }
  await Promise.race([signalled, ...(service.done ? [service.done] : [])]);
  await service.stop();
  logger.flush?.();
  return 0;
}

/** The load generator: the first SIGINT/SIGTERM ends the runs early and still reports them. */
async function benchCommand(config: Config): Promise<number> {
  const stop = new AbortController();
  const onSignal = (): void => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const results = await runBench(config, { out: (text) => process.stdout.write(text), progress: progressBar(), signal: stop.signal });
    return results.runs.some((run) => run.requests.completed > 0) ? 0 : 1;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/** The first SIGINT/SIGTERM starts a graceful shutdown; a second one exits at once. */
function waitForShutdownSignal(logger: Logger): Promise<void> {
  return new Promise((resolve) => {
    let received = false;
    const onSignal = (signal: NodeJS.Signals): void => {
      if (received) {
        process.stderr.write(`${signal} again: exiting without finishing the shutdown\n`);
        process.exit(1);
      }
      received = true;
      logger.info({ signal }, 'shutting down');
      resolve();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}
