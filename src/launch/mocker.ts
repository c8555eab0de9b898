// `dynamo-ts mocker`: simulated engines as standalone workers. Each of `--num-workers` engines is
// its own instance (own lease and instance id) serving the model's endpoint and publishing its card
// and KV events.
import type { Config } from '../config/index.js';
import { buildMockVocabulary, MockerEngine } from '../engines/mocker/index.js';
import { toCardJson } from '../models/index.js';
import type { Logger } from '../observability/index.js';
import { TokenTable } from '../pipeline/index.js';
import { announceKvEvents, DistributedRuntime, engineHandler, kvEventPublisher } from '../runtime/index.js';
import { mockerEngineOptions } from './mocker-options.js';
import { runtimeOptionsFromConfig } from './runtime-options.js';
import { loadConfiguredCard, parseEndpoint } from './served-model.js';

export interface RunningMocker {
  readonly runtimes: readonly DistributedRuntime[];
  readonly engines: readonly MockerEngine[];
  stop(): Promise<void>;
}

export async function startMocker(config: Config, logger: Logger): Promise<RunningMocker> {
  const blockSize = config.kvCacheBlockSize ?? config.blockSize;
  const card = loadConfiguredCard(config, blockSize);
  const ep = parseEndpoint(config.endpoint ?? `dyn://${config.namespace || 'dynamo'}.backend.generate`);
  const vocab = buildMockVocabulary(TokenTable.fromFile(card.tokenizerJsonPath, card.files.tokenizerConfig?.path));
  const onLeaseLost = (): void => {
    logger.error({}, 'discovery lease lost: exiting so a supervisor can restart this worker');
    process.exit(1);
  };
  const first = await DistributedRuntime.create(runtimeOptionsFromConfig(config, logger, onLeaseLost));
  const runtimes = [first];
  for (let i = 1; i < config.numWorkers; i++) runtimes.push(await first.sibling());
  const engines = runtimes.map(
    (rt) =>
      new MockerEngine({
        ...mockerEngineOptions(config, vocab, blockSize),
        onKvEvent: kvEventPublisher(rt.events, ep.namespace, ep.component, rt.instanceId),
      }),
  );

  // Workers register once "loaded", as a real engine would after its startup time.
  const register = async (): Promise<void> => {
    const cardJson = toCardJson(card);
    if (config.enablePrefixCaching) await announceKvEvents(first.events, ep.namespace, ep.component);
    for (const [i, rt] of runtimes.entries()) {
      const endpoint = rt.namespace(ep.namespace).component(ep.component).endpoint(ep.endpoint);
      await endpoint.serveEndpoint(engineHandler(engines[i]!));
      await endpoint.registerModel(cardJson, { modelType: card.modelType, modelInput: card.modelInput });
    }
    logger.info(
      { model: card.displayName, endpoint: `${ep.namespace}.${ep.component}.${ep.endpoint}`, instances: runtimes.map((r) => r.instanceIdHex) },
      'dynamo-ts mocker registered',
    );
  };
  let startup: NodeJS.Timeout | undefined;
  if (config.startupTime) {
    startup = setTimeout(() => void register().catch((err: Error) => logger.error({ err: err.message }, 'registration failed')), config.startupTime * 1000);
  } else {
    await register();
  }
  return {
    runtimes,
    engines,
    async stop() {
      clearTimeout(startup);
      for (const rt of runtimes.slice().reverse()) await rt.shutdown();
      for (const engine of engines) engine.close();
    },
  };
}
