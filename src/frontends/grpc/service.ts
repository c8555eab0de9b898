// The GRPCInferenceService handlers (reference/kserve.md §3), thin over the KServe core.

import * as grpc from '@grpc/grpc-js';
import { CancelledError } from '../../protocols/index.js';
import {
  type KserveCore,
  type ModelInferRequest,
  type ModelInferResponse,
  type ModelStreamInferResponse,
  type StartedRun,
} from '../../kserve/index.js';
import { unimplemented, wrapBidi, wrapUnary, type WrapContext } from './call-wrappers.js';
import { readMessages } from './read-stream.js';
import { DEFAULT_METADATA_PREFIX, requestMetadata } from './request-metadata.js';
import { traceContextOfMetadata } from './request-id.js';
import { malformedMessageError } from './tolerant-decoding.js';

interface NameRequest {
  name: string;
  version?: string;
}

/** The traced operation of a run: the gRPC method path. */
const MODEL_INFER = '/inference.GRPCInferenceService/ModelInfer';
const MODEL_STREAM_INFER = '/inference.GRPCInferenceService/ModelStreamInfer';
const EXTENSIONS = ['model_configuration', 'model_repository', 'statistics', 'binary_tensor_data'];

export class InferenceService {
  constructor(
    private readonly core: KserveCore,
    /** Lower-case prefix of the metadata keys passed through to engines. */
    private readonly metadataPrefix = DEFAULT_METADATA_PREFIX,
  ) {}

  /** grpc-js handler map for `inference.GRPCInferenceService`. */
  handlers(ctx: WrapContext): grpc.UntypedServiceImplementation {
    const { core } = this;
    const shm = 'shared-memory tensors are not supported; send tensor data in the request';
    return {
      ServerLive: wrapUnary(ctx, 'ServerLive', () => ({ live: true })),
      ServerReady: wrapUnary(ctx, 'ServerReady', () => ({ ready: core.models.anyReady() })),
      ModelReady: wrapUnary(ctx, 'ModelReady', (req: NameRequest) => ({ ready: core.models.isReady(req.name) })),
      ServerMetadata: wrapUnary(ctx, 'ServerMetadata', () => core.serverMetadata(EXTENSIONS)),
      ModelMetadata: wrapUnary(ctx, 'ModelMetadata', (req: NameRequest) => core.metadata(req.name)),
      ModelConfig: wrapUnary(ctx, 'ModelConfig', (req: NameRequest) => ({ config: core.config(req.name) })),
      ModelInfer: wrapUnary(ctx, 'ModelInfer', (req: ModelInferRequest, call) => this.infer(req, call)),
      ModelStreamInfer: wrapBidi(ctx, 'ModelStreamInfer', (call: grpc.ServerDuplexStream<ModelInferRequest, ModelStreamInferResponse>, tracker) =>
        this.streamInfer(call, tracker),
      ),
      ModelStatistics: wrapUnary(ctx, 'ModelStatistics', (req: NameRequest) => core.statistics(req.name)),
      RepositoryIndex: wrapUnary(ctx, 'RepositoryIndex', (req: { ready: boolean }) => ({ models: core.index(req.ready) })),
      RepositoryModelLoad: wrapUnary(ctx, 'RepositoryModelLoad', (req: { model_name: string }) => {
        core.models.load(req.model_name);
        return {};
      }),
      RepositoryModelUnload: wrapUnary(ctx, 'RepositoryModelUnload', (req: { model_name: string }) => {
        core.models.unload(req.model_name);
        return {};
      }),
      SystemSharedMemoryStatus: wrapUnary(ctx, 'SystemSharedMemoryStatus', () => ({ regions: {} })),
      SystemSharedMemoryRegister: unimplemented(ctx, 'SystemSharedMemoryRegister', shm),
      SystemSharedMemoryUnregister: unimplemented(ctx, 'SystemSharedMemoryUnregister', shm),
      CudaSharedMemoryStatus: wrapUnary(ctx, 'CudaSharedMemoryStatus', () => ({ regions: {} })),
      CudaSharedMemoryRegister: unimplemented(ctx, 'CudaSharedMemoryRegister', shm),
      CudaSharedMemoryUnregister: unimplemented(ctx, 'CudaSharedMemoryUnregister', shm),
      TraceSetting: unimplemented(ctx, 'TraceSetting', 'request tracing settings are not configurable over gRPC'),
      LogSettings: unimplemented(ctx, 'LogSettings', 'log settings are configured with --log-level / DYN_LOG'),
    };
  }

  /** Starts one inference run (its request events start with it, traced under the call's trace context). */
  private start(req: ModelInferRequest, signal: AbortSignal, requestType: 'stream' | 'unary', callMetadata: grpc.Metadata): StartedRun {
    return this.core.start(req, {
      signal,
      requestType,
      metadata: requestMetadata(callMetadata, this.metadataPrefix),
      headers: (name) => callMetadata.get(name).filter((v): v is string => typeof v === 'string'),
      trace: traceContextOfMetadata(callMetadata),
      operation: requestType === 'unary' ? MODEL_INFER : MODEL_STREAM_INFER,
    });
  }

  private async infer(req: ModelInferRequest, call: grpc.ServerUnaryCall<ModelInferRequest, ModelInferResponse>): Promise<ModelInferResponse> {
    const abort = new AbortController();
    const onCancel = (): void => abort.abort(new CancelledError());
    call.once('cancelled', onCancel);
    let started: StartedRun | undefined;
    try {
      started = this.start(req, abort.signal, 'unary', call.metadata);
      const response = await started.run.unary();
      started.succeed();
      return response;
    } catch (err) {
      started?.fail(err);
      // Stops whatever the engine still produces (e.g. extra tensor responses). A successful fold
      // has drained the run, so only failures abort; the error as reason spares a DOMException.
      abort.abort(err);
      throw err;
    } finally {
      call.off('cancelled', onCancel);
    }
  }

  /** Requests on one stream run strictly one after another, responses in request order. */
  private async streamInfer(
    call: grpc.ServerDuplexStream<ModelInferRequest, ModelStreamInferResponse>,
    tracker: { received(): void; sent(): void },
  ): Promise<void> {
    const abort = new AbortController();
    call.once('cancelled', () => abort.abort(new CancelledError()));
    // Headers go out at once, before any work, as upstream's server does.
    call.sendMetadata(new grpc.Metadata());
    const write = async (msg: ModelStreamInferResponse): Promise<void> => {
      tracker.sent();
      if (!call.write(msg)) await new Promise((resolve) => call.once('drain', resolve));
    };
    for await (const req of readMessages<ModelInferRequest>(call)) {
      tracker.received();
      if (abort.signal.aborted) return;
      const malformed = malformedMessageError(req);
      if (malformed) {
        await write({ error_message: malformed.message, infer_response: null });
        continue;
      }
      const started = this.start(req, abort.signal, 'stream', call.metadata);
      let failure: string | undefined;
      try {
        for await (const event of started.run.events) {
          if (abort.signal.aborted) break;
          if (event.error !== undefined) {
            failure ??= event.error;
            const text = event.conversion ? `Failed to convert response: ${event.error}` : event.error;
            await write({ error_message: text, infer_response: null });
          } else {
            await write({ error_message: '', infer_response: event.response });
          }
        }
      } catch (err) {
        started.fail(err);
        throw err;
      }
      // In-stream errors arrive as texts, without a kind: they count as internal.
      if (abort.signal.aborted) started.fail(abort.signal.reason, 'cancelled');
      else if (failure !== undefined) started.fail(failure, 'internal');
      else started.succeed();
    }
  }
}
