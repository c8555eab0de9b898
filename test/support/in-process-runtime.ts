import { modelWatcherSettings } from '../../src/launch/model-settings.js';
import { ModelManager, ModelWatcher } from '../../src/models/index.js';
import { createLogger, type Logger } from '../../src/observability/index.js';
import { decodeEndpointInstance, DistributedRuntime, INSTANCES_BUCKET, watchRecords, type EndpointInstance, type NamespaceScope, type RuntimeOptions } from '../../src/runtime/index.js';
import { eventually } from './in-process.js';
import { runConfig } from './run-config.js';

/** A runtime that stays inside the test process: in-memory discovery, in-process planes. */
export const IN_PROCESS_RUNTIME: RuntimeOptions = {
  discovery: 'mem',
  requestPlane: 'inproc',
  eventPlane: 'inproc',
  etcdEndpoints: [],
  natsServer: '',
  leaseTtlSecs: 10,
  tcpMaxMessageSize: 1 << 20,
  advertiseHost: '127.0.0.1',
};

/**
 * A frontend's side of discovery in the test process: its own runtime and a started model watcher
 * filling `models` with the workers `inScope` accepts.
 */
export async function startWatchingFrontend(inScope: NamespaceScope, logger: Logger = createLogger('silent')) {
  const config = runConfig(['frontend'], {});
  const frontend = await DistributedRuntime.create(IN_PROCESS_RUNTIME);
  const models = new ModelManager();
  const watcher = new ModelWatcher({
    backend: frontend.discovery,
    requestClient: frontend.requestClient,
    events: () => frontend.events,
    models,
    settings: modelWatcherSettings(config),
    logger,
    inScope,
  });
  await watcher.start();
  return { frontend, models, watcher };
}

/** The endpoint instances registered under `namespace`, once there are `count` of them. */
export async function discoverInstances(runtime: DistributedRuntime, namespace: string, count = 1): Promise<EndpointInstance[]> {
  const found = new Map<string, EndpointInstance>();
  const stop = await watchRecords(runtime.discovery, `${INSTANCES_BUCKET}/${namespace}/`, decodeEndpointInstance, {
    onPut: (key, inst) => found.set(key, inst),
    onDelete: (key) => found.delete(key),
  });
  await eventually(() => found.size === count, 60_000, `${count} instances`);
  stop();
  return [...found.values()];
}
