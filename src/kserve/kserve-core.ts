// What the KServe v2 protocol answers, whatever carries it (gRPC, or Triton's HTTP/REST): server
// and model readiness, model metadata and config, statistics, the repository, and inference runs
// whose outcome goes to their request events and the model statistics. Both frontends hold the
// same instance, so they serve the same models with the same checks and count into one set of stats.

import type { ModelManager } from '../models/index.js';
import { packageVersion } from '../config/version.js';
import { ValidationError, type ErrorKind, type RequestScope, type TraceHeaders } from '../protocols/index.js';
import type { HeaderLookup } from '../pipeline/index.js';
import { COMPLETION_INPUTS } from './completions/request.js';
import { startInfer, type InferRun } from './infer.js';
import { dataTypeByTriton } from './tensor/data-types.js';
import {
  completionsConfig,
  completionsMetadata,
  declaredTensorConfig,
  metadataFromTritonConfig,
  tensorMetadata,
} from './model-config/model-info.js';
import { ModelRepository } from './model-config/repository.js';
import { KserveModels, type ModelIndexEntry } from './model-registry.js';
import { ModelStatisticsTracker } from './statistics.js';
import type { ModelConfigMessage, ModelInferRequest, ModelMetadataResponse } from './wire-types.js';

/** A run whose outcome goes to its request events and the model statistics. */
export interface StartedRun {
  run: InferRun;
  succeed(): void;
  /** `kind` defaults to the error's own; `cancelled` is a cancel. */
  fail(error: unknown, kind?: ErrorKind): void;
}

export interface RunOptions {
  signal: AbortSignal;
  requestType: 'stream' | 'unary';
  /** Passed through to engines (x-dynamo-meta-* headers or metadata). */
  metadata?: Readonly<Record<string, string>>;
  /** The call's headers (gRPC metadata): the routing headers of a completions run (session, worker, rank). */
  headers?: HeaderLookup;
  /** The client's W3C trace context. */
  trace?: TraceHeaders;
  /** The traced operation: the gRPC method path, or the HTTP method and route. */
  operation: string;
}

export interface ServerMetadata {
  name: string;
  version: string;
  extensions: string[];
}

/** An input a model declares: KServe datatype (undefined when the config's type is unknown) and dims. */
export interface DeclaredInput {
  name: string;
  datatype: string | undefined;
  dims: number[];
}

export interface DeclaredInputs {
  inputs: readonly DeclaredInput[];
  /** Above 0, every input shape starts with the batch dimension. */
  maxBatchSize: number;
}

const noTensorConfig = (name: string): ValidationError =>
  new ValidationError(`Model '${name}' has type Tensor but no model config is provided`);

export class KserveCore {
  readonly stats = new ModelStatisticsTracker();

  constructor(
    readonly models: KserveModels,
    /** The frontend whose request events the runs publish. */
    readonly requestScope: RequestScope,
  ) {}

  serverMetadata(extensions: readonly string[]): ServerMetadata {
    return { name: 'dynamo-ts', version: packageVersion(), extensions: [...extensions] };
  }

  metadata(name: string): ModelMetadataResponse {
    const found = this.models.require(name);
    const repo = this.models.repository?.get(name)?.config;
    if (found.kind === 'completions') return repo ? metadataFromTritonConfig(repo) : completionsMetadata(found.served.name);
    const { config } = found.model;
    if (config?.triton_model_config || repo) return metadataFromTritonConfig(declaredTensorConfig(found.model, repo)!);
    if (!config) throw noTensorConfig(name);
    return tensorMetadata(config);
  }

  config(name: string): ModelConfigMessage {
    const found = this.models.require(name);
    const repo = this.models.repository?.get(name)?.config;
    if (found.kind === 'completions') return repo ?? completionsConfig(found.served.name);
    const declared = declaredTensorConfig(found.model, repo);
    if (!declared) throw noTensorConfig(name);
    return declared;
  }

  /**
   * The inputs a model takes: a completions model's vLLM-backend inputs, a tensor model's declared
   * config; undefined for a tensor model without one. NOT_FOUND for an unknown model.
   */
  declaredInputs(name: string): DeclaredInputs | undefined {
    const found = this.models.require(name);
    if (found.kind === 'completions') return { inputs: COMPLETION_INPUTS, maxBatchSize: 0 };
    const declared = declaredTensorConfig(found.model, this.models.repository?.get(name)?.config);
    if (!declared) return undefined;
    return {
      inputs: (declared.input ?? []).map((i) => ({ name: i.name, datatype: dataTypeByTriton(i.data_type)?.kserve, dims: i.dims.map(Number) })),
      maxBatchSize: Number(declared.max_batch_size ?? 0),
    };
  }

  /** Statistics of one model (NOT_FOUND when unknown), or of every known model for an empty name. */
  statistics(name: string): { model_stats: Record<string, unknown>[] } {
    if (name) {
      this.models.require(name);
      return { model_stats: [this.stats.message(name)] };
    }
    return { model_stats: this.models.index().map((m) => this.stats.message(m.name)) };
  }

  index(readyOnly: boolean): ModelIndexEntry[] {
    return this.models.index().filter((m) => !readyOnly || m.state === 'READY');
  }

  /** Starts one inference run (its request events start with it); throws the request-level error. */
  start(req: ModelInferRequest, opts: RunOptions): StartedRun {
    const startNs = process.hrtime.bigint();
    const run = startInfer(this.models, req, { ...opts, scope: this.requestScope });
    const inputDone = process.hrtime.bigint();
    return {
      run,
      succeed: () => {
        run.request.succeed();
        this.stats.record(run.model, true, startNs, inputDone);
      },
      fail: (error, kind) => {
        run.request.fail(error, kind);
        this.stats.record(run.model, false, startNs, inputDone);
      },
    };
  }
}

/** A KServe core over a model manager, with the Triton model repository at `repositoryDir` when given. */
export function createKserveCore(manager: ModelManager, requestScope: RequestScope, repositoryDir?: string): KserveCore {
  const repository = repositoryDir ? new ModelRepository(repositoryDir) : undefined;
  return new KserveCore(new KserveModels(manager, repository), requestScope);
}
