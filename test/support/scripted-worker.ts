// A worker process that misbehaves on purpose, for fault tests: it registers model
// $SCRIPTED_MODEL over etcd and the TCP request plane, prints ACCEPTED when a request reaches its
// engine, then either stalls after one token ($SCRIPTED_MODE=stall; prints ABORTED when told to
// stop) or never answers at all (silent), so the test can kill it before its first byte.
import { loadDefaultModelCard, toCardJson } from '../../src/models/index.js';
import type { EngineClient, LLMEngineOutput } from '../../src/protocols/index.js';
import { DistributedRuntime, engineHandler } from '../../src/runtime/index.js';

const stall = process.env.SCRIPTED_MODE === 'stall';

const engine: EngineClient = {
  async *generate(_request, ctx): AsyncGenerator<LLMEngineOutput> {
    console.log('ACCEPTED');
    if (stall) yield { token_ids: [9707] };
    await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
    console.log('ABORTED');
  },
};

const runtime = await DistributedRuntime.create({
  discovery: 'etcd',
  requestPlane: 'tcp',
  eventPlane: 'nats',
  etcdEndpoints: [process.env.ETCD_ENDPOINTS!],
  natsServer: process.env.NATS_SERVER!,
  leaseTtlSecs: 30,
  tcpMaxMessageSize: 1 << 24,
  advertiseHost: '127.0.0.1',
});
const endpoint = runtime.namespace('dynamo').component('backend').endpoint('generate');
await endpoint.serveEndpoint(engineHandler(engine));
await endpoint.registerModel({ ...toCardJson(loadDefaultModelCard()), display_name: process.env.SCRIPTED_MODEL! }, { modelType: ['Chat', 'Completions'], modelInput: 'Tokens' });
console.log('READY');
process.on('SIGTERM', () => void runtime.shutdown().then(() => process.exit(0)));
