import { ConfigError, parseCommandLine, writeConfigDump, type Config, type Subcommand } from '../config/index.js';
import { startServe, type RunningService } from '../launch/index.js';
import { createLogger, type Logger } from '../observability/index.js';

type Starter = (config: Config, logger: Logger) => Promise<RunningService>;

/**
 * `frontend` and `mocker` on their own need a discovery backend and request plane that reach
 * other processes; until those exist only `serve` runs, and the config refuses the rest by name.
 */
const STARTERS: Record<Subcommand, Starter | undefined> = {
  serve: startServe,
  frontend: undefined,
  mocker: undefined,
};

/** The CLI: parse, then run the subcommand until SIGINT/SIGTERM. Resolves to the exit code. */
export async function main(argv: string[], env: Record<string, string | undefined>): Promise<number> {
  let parsed;
  try {
    parsed = parseCommandLine(argv, env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`error: ${err.message}\n`);
      return err.exitCode;
    }
    throw err;
  }
  if (parsed.kind !== 'run') {
    process.stdout.write(parsed.text.endsWith('\n') ? parsed.text : `${parsed.text}\n`);
    return 0;
  }
  const { command, config } = parsed;
  const logger = createLogger(config.log);
  for (const warning of parsed.warnings) logger.warn(warning);
  if (config.dumpConfigTo) await writeConfigDump(config.dumpConfigTo, config);

  const start = STARTERS[command];
  if (!start) {
    process.stderr.write(
      `error: 'dynamo-ts ${command}' needs a discovery backend shared between processes (etcd, file or kubernetes), which is not available yet in this build; run 'dynamo-ts serve' for the frontend with an embedded engine\n`,
    );
    return 2;
  }
  const service = await start(config, logger);
  await waitForShutdownSignal(logger);
  await service.stop();
  logger.flush?.();
  return 0;
}

function waitForShutdownSignal(logger: Logger): Promise<void> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals): void => {
      logger.info({ signal }, 'shutting down');
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      resolve();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}
