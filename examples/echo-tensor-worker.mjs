// An echo tensor worker, like upstream's tests/frontend/grpc/echo_tensor_worker.py: it registers
// tensor model "echo" with a Triton model config and returns the request's tensors and parameters
// (plus `processed: true`). Request parameters switch on failure modes for testing:
// `malformed_response` (data without data_type), `data_mismatch` (values emptied),
// `raise_exception` (the worker throws).
//
// Run (uses the built package: run `npm run build` first), either
//   node examples/echo-tensor-worker.mjs [grpc-port] [metrics-port]
// in-process: a KServe gRPC frontend serving the model itself; or
//   node examples/echo-tensor-worker.mjs --worker
// as a worker process: it registers the model through discovery and serves it over the request
// plane, configured by the environment as `dynamo-ts mocker` is (DYN_DISCOVERY_BACKEND, DYN_FILE_KV,
// ETCD_ENDPOINTS, DYN_REQUEST_PLANE, NATS_SERVER, DYN_NAMESPACE, ...); a
// `dynamo-ts frontend --kserve-grpc-server` sharing that environment serves it.

import { pathToFileURL } from 'node:url';
import {
  createLogger,
  DistributedRuntime,
  encodeModelConfig,
  startKserveFrontend,
  tensorEngineHandler,
  tensorModelCardJson,
  workerRuntimeFromEnv,
} from 'dynamo-ts';

const ECHOED = [
  ['INPUT', 'TYPE_FP32', [-1]],
  ['f', 'TYPE_FP32', [-1]],
  ['h', 'TYPE_FP16', [-1]],
  ['b', 'TYPE_BF16', [-1]],
  ['l', 'TYPE_INT64', [-1]],
  ['i', 'TYPE_INT64', [-1, -1]],
  ['s', 'TYPE_STRING', [-1]],
  ['o', 'TYPE_BOOL', [-1]],
];

/** The Triton ModelConfig the worker registers, serialized as upstream's worker does. */
export function echoTritonConfig() {
  return encodeModelConfig({
    name: 'echo',
    platform: 'custom',
    // The frontend checks requests against these inputs: upstream's two (`input` optional here),
    // then one per tensor this project's tests echo.
    input: [
      { name: 'input', data_type: 'TYPE_STRING', dims: [-1], optional: true },
      { name: 'optional_input', data_type: 'TYPE_INT32', dims: [-1], optional: true },
      ...ECHOED.map(([name, data_type, dims]) => ({ name, data_type, dims, optional: true })),
    ],
    output: [{ name: 'dummy_output', data_type: 'TYPE_STRING', dims: [-1] }],
    model_transaction_policy: { decoupled: true },
  });
}

export class EchoTensorEngine {
  async *generate(request) {
    const params = request.parameters ?? {};
    if (params.raise_exception?.bool) throw new Error('Intentional exception raised by echo_tensor_worker.');
    const tensors = request.tensors.map((t) => ({ metadata: { ...t.metadata }, data: { ...t.data } }));
    if (params.malformed_response?.bool && tensors[0]) tensors[0].data = { values: [0, 1, 2] };
    if (params.data_mismatch?.bool && tensors[0]) tensors[0].data.values = [];
    yield { model: request.model, tensors, parameters: { ...params, processed: { bool: true } } };
  }
}

/** The tensor model as registered: name "echo", Triton config bytes, empty Dynamo config fields. */
export function echoTensorModel() {
  return {
    name: 'echo',
    engine: new EchoTensorEngine(),
    config: { name: '', inputs: [], outputs: [], triton_model_config: echoTritonConfig() },
  };
}

/** Registers the echo model as component `tensor`, endpoint `generate`, in the configured namespace. */
async function runWorker() {
  const logger = createLogger(process.env.DYN_LOG ?? 'info');
  const { options, namespace } = workerRuntimeFromEnv(process.env, logger, () => process.exit(1));
  const runtime = await DistributedRuntime.create(options);
  const model = echoTensorModel();
  const endpoint = runtime.namespace(namespace).component('tensor').endpoint('generate');
  await endpoint.serveEndpoint(tensorEngineHandler(model.engine));
  await endpoint.registerModel(tensorModelCardJson(model.name, model.config), { modelType: ['TensorBased'], modelInput: 'Tensor' });
  process.stdout.write(`echo tensor worker ${runtime.instanceIdHex} registered in namespace ${namespace}\n`);
  const stop = () => runtime.shutdown().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

async function runInProcess() {
  const port = Number(process.argv[2] ?? 8000);
  const metricsPort = Number(process.argv[3] ?? 8788);
  const frontend = await startKserveFrontend({ port, metricsPort, tensorModels: [echoTensorModel()] });
  process.stdout.write(`echo tensor model on gRPC port ${frontend.grpcPort}, metrics on ${frontend.metricsPort}\n`);
  const stop = () => frontend.stop().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await (process.argv[2] === '--worker' ? runWorker() : runInProcess());
}
