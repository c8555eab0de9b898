import { ConfigError, parseCommandLine, writeConfigDump, type Config, type Subcommand } from '../config/index.js';
import { startFrontend, startMocker, startServe } from '../launch/index.js';
import { createLogger, type Logger } from '../observability/index.js';

type Starter = (config: Config, logger: Logger) => Promise<{ stop(): Promise<void> }>;

const STARTERS: Record<Subcommand, Starter> = {
  serve: startServe,
  frontend: startFrontend,
  mocker: startMocker,
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
  const { command, config } = parsed;
  const logger = createLogger(config.log);
  for (const warning of parsed.warnings) logger.warn(warning);
  if (config.dumpConfigTo) await writeConfigDump(config.dumpConfigTo, config);

  const service = await STARTERS[command](config, logger);
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
