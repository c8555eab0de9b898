// Tensor models over the request plane (model type TensorBased, input Tensor): the worker receives
// upstream's NvCreateTensorRequest JSON and answers NvCreateTensorResponse JSON in Annotated items
// (reference/kserve.md §6.1). In memory Bytes elements are Uint8Array and 64-bit integers bigint, as
// the gRPC frontend builds them; on the wire they are lists of byte values and bare JSON integers.
import type { GenerateContext, NvCreateTensorRequest, NvCreateTensorResponse, TensorEngine } from '../protocols/index.js';
import type { EndpointInstance } from './discovery/index.js';
import { remoteCall, type RemoteCallLogger } from './remote-stream.js';
import type { EndpointHandler, RequestPlaneClient } from './request-plane/index.js';

type Json = Record<string, unknown>;

const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Element lists by data type; anything malformed is passed through for the receiver to reject. */
function convertData(data: unknown, toWire: boolean): unknown {
  if (!isRecord(data) || !Array.isArray(data.values)) return data;
  const type = data.data_type;
  if (type === 'Bytes') {
    const values = data.values.map((v: unknown) =>
      toWire ? (v instanceof Uint8Array ? Array.from(v) : v) : Array.isArray(v) ? Uint8Array.from(v as number[]) : v,
    );
    return { ...data, values };
  }
  if (!toWire && (type === 'Int64' || type === 'Uint64')) {
    return { ...data, values: data.values.map((v: unknown) => (typeof v === 'number' && Number.isInteger(v) ? BigInt(v) : v)) };
  }
  return data;
}

/** A tensor request or response between its in-memory and its JSON form (`toWire`). */
function convertMessage(message: unknown, toWire: boolean): unknown {
  if (!isRecord(message) || !Array.isArray(message.tensors)) return message;
  const tensors = message.tensors.map((t: unknown) => (isRecord(t) ? { ...t, data: convertData(t.data, toWire) } : t));
  return { ...message, tensors };
}

/** Serves a TensorEngine as an endpoint handler; 64-bit values stay exact both ways. */
export function tensorEngineHandler(engine: TensorEngine): EndpointHandler {
  const serveTensors = async function* (request: unknown, ctx: GenerateContext): AsyncGenerator<unknown> {
    const typed = convertMessage(request, false) as NvCreateTensorRequest;
    const { requestId, signal, metadata } = ctx;
    for await (const res of engine.generate(typed, { requestId, signal, metadata })) {
      yield { data: convertMessage(res, true) };
    }
  };
  return Object.assign(serveTensors, { exactIntegers: true });
}

/** A TensorEngine for one remote tensor worker instance. */
export class RemoteTensorClient implements TensorEngine {
  constructor(
    private readonly client: RequestPlaneClient,
    readonly instance: EndpointInstance,
    private readonly logger?: RemoteCallLogger,
  ) {}

  generate(request: NvCreateTensorRequest, ctx: GenerateContext): AsyncIterable<NvCreateTensorResponse> {
    const { requestId, signal, metadata } = ctx;
    return remoteCall(
      this.client,
      this.instance,
      convertMessage(request, true),
      { requestId, signal, metadata, exactIntegers: true },
      (data) => convertMessage(data, false) as NvCreateTensorResponse,
      this.logger,
    );
  }
}
