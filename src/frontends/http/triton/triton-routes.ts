// Triton's HTTP/REST protocol (KServe v2 over HTTP) under /v2, over the same KServe core as the
// gRPC service: same models, same checks, same statistics. Bodies are read as bytes (an infer body
// may carry binary tensor data after its JSON part); errors read `{"error": "..."}` as Triton's do.

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { protoRoot, shapeOf, type KserveCore, type ModelConfigMessage, type ModelInferRequest, type ModelInferResponse, type StartedRun } from '../../../kserve/index.js';
import { traceContextOf } from '../../../observability/index.js';
import { CancelledError, isDynamoError, NotFoundError, UnsupportedMediaTypeError, ValidationError } from '../../../protocols/index.js';
import { adminErrorReply, type ErrorEnvelope } from '../error-envelope.js';
import { parseJsonBody } from '../body/index.js';
import type { HttpRoute } from '../http-route.js';
import { documented } from '../openapi/index.js';
import { frameworkErrorHandler, postRoute, sendError } from '../server.js';
import type { HttpServiceState } from '../service-state.js';
import { SseWriter } from '../sse/index.js';
import { generateResponse, toGenerateRequest } from './generate-request.js';
import { HEADER_LENGTH, splitBody, toInferRequest } from './infer-request.js';
import { stringifyExact } from '../exact-json.js';
import { inferResponse, isObject } from './json-tensors.js';
import { TRITON_DOCS } from './route-docs.js';

export const TRITON_PREFIX = '/v2';
/** Probes: open without an API key, like /health and /live. */
export const TRITON_OPEN_ROUTES: readonly string[] = ['/v2/health/live', '/v2/health/ready'];
/** Admin routes: refused while no key is configured unless admin routes are enabled (as gRPC's). */
export const TRITON_ADMIN_ROUTES: readonly string[] = ['/v2/repository/models/:model/load', '/v2/repository/models/:model/unload'];

const EXTENSIONS = ['model_configuration', 'model_repository', 'statistics', 'binary_tensor_data', 'generate'];

export const tritonErrorReply: ErrorEnvelope = (err) => adminErrorReply(err);

interface TritonRouteOptions {
  core: KserveCore;
  state: HttpServiceState;
  bodyLimitMb: number;
  sseKeepAliveMs?: number;
}

type ModelParams = { model: string; version?: string };

const modelOf = (req: FastifyRequest): string => (req.params as ModelParams).model;

/** A path and its `/versions/{v}` twin (the version is accepted and ignored: every model is version 1). */
const versioned = (suffix: string): string[] => [`/models/:model${suffix}`, `/models/:model/versions/:version${suffix}`];

/** 200 with an empty body, or 400 (Triton's answer for not live / not ready). */
const probe = (reply: FastifyReply, ok: boolean): FastifyReply => reply.code(ok ? 200 : 400).send();

const sendJson = (reply: FastifyReply, body: unknown): FastifyReply =>
  reply.header('content-type', 'application/json').send(stringifyExact(body));

/** Statistics counters are numbers in Triton's JSON (the gRPC message carries uint64 as strings). */
const COUNTERS = new Set(['count', 'ns', 'last_inference', 'inference_count', 'execution_count']);
const sendStats = (reply: FastifyReply, stats: unknown): FastifyReply =>
  reply.header('content-type', 'application/json').send(JSON.stringify(stats, (key, v: unknown) => (COUNTERS.has(key) && typeof v === 'string' ? Number(v) : v)));

/** ModelConfig as Triton's JSON: int64 fields as numbers, enums by name, every field present. */
function configJson(config: ModelConfigMessage): unknown {
  const type = protoRoot().lookupType('inference.ModelConfig');
  return type.toObject(type.fromObject(config), { longs: Number, enums: String, bytes: String, defaults: true });
}

/** Served over the KServe core the service is given (absent: /v2 answers 404), at TRITON_PREFIX. */
export const TRITON_ROUTE: HttpRoute = {
  register(app, prefix, { state, options }) {
    const core = options.kserve;
    if (!core) return;
    const opts = { core, state, bodyLimitMb: options.bodyLimitMb, sseKeepAliveMs: options.sseKeepAliveMs };
    void app.register(async (scope) => tritonScope(scope, opts), { prefix });
  },
};

function tritonScope(app: FastifyInstance, opts: TritonRouteOptions): void {
  const { core, state } = opts;
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
  app.setErrorHandler(frameworkErrorHandler(opts.bodyLimitMb, state, tritonErrorReply));
  app.setNotFoundHandler((req, reply) => {
    sendError(reply, new NotFoundError(`Route not found: ${req.method} ${req.url.split('?')[0]}`), state.overloadStatus, tritonErrorReply);
  });
  const answer = (handler: (req: FastifyRequest, reply: FastifyReply) => unknown) => async (req: FastifyRequest, reply: FastifyReply) => {
    try {
      const body = await handler(req, reply);
      if (body === undefined || body === reply || reply.sent) return reply;
      return sendJson(reply, body);
    } catch (err) {
      if (!isDynamoError(err)) req.log.error({ err }, 'request failed');
      if (reply.sent || reply.raw.headersSent) return reply;
      return sendError(reply, err, state.overloadStatus, tritonErrorReply);
    }
  };

  app.get('/health/live', documented(TRITON_DOCS.live), async (_req, reply) => probe(reply, state.phase !== 'stopping'));
  app.get('/health/ready', documented(TRITON_DOCS.ready), async (_req, reply) => probe(reply, state.phase === 'serving' && core.models.anyReady()));
  app.get('', documented(TRITON_DOCS.server), answer(() => core.serverMetadata(EXTENSIONS)));
  app.get('/models/stats', documented(TRITON_DOCS.allStats), answer((_req, reply) => sendStats(reply, core.statistics(''))));
  for (const path of versioned('')) {
    app.get(path, documented(TRITON_DOCS.modelMetadata), answer((req) => {
      const meta = core.metadata(modelOf(req));
      const tensor = (t: { name: string; datatype: string; shape: (string | number)[] }) => ({ ...t, shape: shapeOf(t.shape) });
      return { ...meta, inputs: meta.inputs.map(tensor), outputs: meta.outputs.map(tensor) };
    }));
  }
  for (const path of versioned('/ready')) {
    app.get(path, documented(TRITON_DOCS.modelReady), async (req, reply) => probe(reply, state.phase === 'serving' && core.models.isReady(modelOf(req))));
  }
  for (const path of versioned('/config')) app.get(path, documented(TRITON_DOCS.modelConfig), answer((req) => configJson(core.config(modelOf(req)))));
  for (const path of versioned('/stats')) {
    app.get(path, documented(TRITON_DOCS.modelStats), answer((req, reply) => sendStats(reply, core.statistics(modelOf(req)))));
  }
  const infer = new InferRoutes(opts);
  for (const path of versioned('/infer')) postRoute(app, path, answer((req, reply) => infer.infer(req, reply)), TRITON_DOCS.infer);
  for (const path of versioned('/generate')) postRoute(app, path, answer((req, reply) => infer.generate(req, reply)), TRITON_DOCS.generate);
  for (const path of versioned('/generate_stream')) postRoute(app, path, answer((req, reply) => infer.generateStream(req, reply)), TRITON_DOCS.generateStream);

  postRoute(app, '/repository/index', answer((req) => {
    const body = jsonBody(req.body);
    const ready = isObject(body) ? body.ready : undefined;
    if (ready !== undefined && typeof ready !== 'boolean') throw new ValidationError("'ready' must be true or false");
    return core.index(ready ?? false);
  }), TRITON_DOCS.repositoryIndex);
  postRoute(app, '/repository/models/:model/load', answer((req, reply) => {
    core.models.load(modelOf(req));
    return reply.code(200).send();
  }), TRITON_DOCS.load);
  postRoute(app, '/repository/models/:model/unload', answer((req, reply) => {
    core.models.unload(modelOf(req));
    return reply.code(200).send();
  }), TRITON_DOCS.unload);
}

/** An optional JSON body (repository calls): undefined when empty. */
function jsonBody(body: unknown): unknown {
  return Buffer.isBuffer(body) && body.byteLength > 0 ? parseJsonBody(body) : undefined;
}

/** An inference body's bytes; compressed bodies are refused by name rather than misread as JSON. */
function bodyOf(req: FastifyRequest): Buffer | undefined {
  const encoding = req.headers['content-encoding'];
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity') {
    throw new UnsupportedMediaTypeError(`Content-Encoding '${encoding}' is not supported: send the body uncompressed`);
  }
  return req.body as Buffer | undefined;
}

/** The inference routes: infer, generate, generate_stream, each one run of the core. */
class InferRoutes {
  constructor(private readonly opts: TritonRouteOptions) {}

  async infer(req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const model = this.servedModel(req);
    const { json, binary } = splitBody(bodyOf(req), req.headers[HEADER_LENGTH]);
    const parsed = toInferRequest(model, json, binary);
    const response = await this.unary(req, reply, parsed.request);
    const out = inferResponse(parsed.selected(response), parsed.binaryOutput);
    const header = Buffer.from(stringifyExact(out.json));
    if (out.binary.length === 0) return reply.header('content-type', 'application/json').send(header);
    return reply
      .header('content-type', 'application/octet-stream')
      .header(HEADER_LENGTH, String(header.byteLength))
      .send(Buffer.concat([header, ...out.binary]));
  }

  async generate(req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const request = this.generateRequest(req, undefined);
    return sendJson(reply, generateResponse(await this.unary(req, reply, request)));
  }

  /**
   * Errors raised before the first response (unknown input, bad sampling parameters, no worker)
   * answer with their status; once the stream is open, an error is one `data: {"error": ...}`
   * event and the stream ends.
   */
  async generateStream(req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const request = this.generateRequest(req, true);
    const { started, abort, done } = this.start(req, reply, request, 'stream');
    const events = started.run.events;
    let sse: SseWriter | undefined;
    try {
      let next = await events.next();
      reply.hijack();
      sse = new SseWriter(reply.raw, {}, this.opts.sseKeepAliveMs);
      let failure: string | undefined;
      for (; !next.done && !abort.signal.aborted; next = await events.next()) {
        const event = next.value;
        if (event.error !== undefined) {
          failure = event.error;
          break;
        }
        sse.data(stringifyExact(generateResponse(event.response)));
      }
      if (failure !== undefined) sse.data(JSON.stringify({ error: failure }));
      sse.end();
      if (abort.signal.aborted) started.fail(abort.signal.reason, 'cancelled');
      else if (failure !== undefined) started.fail(failure, 'internal');
      else started.succeed();
      return reply;
    } catch (err) {
      started.fail(err);
      abort.abort(err);
      if (!sse) throw err;
      sse.data(JSON.stringify(tritonErrorReply(err, this.opts.state.overloadStatus).body));
      sse.end();
      return reply;
    } finally {
      await events.return(undefined);
      done();
    }
  }

  /** The model of the path, resolved before the body is read (an unknown model is 404 whatever the body). */
  private servedModel(req: FastifyRequest): string {
    this.opts.state.assertServing();
    const model = modelOf(req);
    this.opts.core.models.require(model);
    return model;
  }

  private generateRequest(req: FastifyRequest, stream: boolean | undefined): ModelInferRequest {
    const model = this.servedModel(req);
    const { json } = splitBody(bodyOf(req), undefined);
    return toGenerateRequest(model, json, this.opts.core.declaredInputs(model), stream);
  }

  /** One folded response (a cancel when the client went away meanwhile). */
  private async unary(req: FastifyRequest, reply: FastifyReply, request: ModelInferRequest): Promise<ModelInferResponse> {
    const { started, abort, done } = this.start(req, reply, request, 'unary');
    try {
      const response = await started.run.unary();
      if (abort.signal.aborted) throw new CancelledError();
      started.succeed();
      return response;
    } catch (err) {
      started.fail(err);
      abort.abort(err);
      throw err;
    } finally {
      done();
    }
  }

  /** Starts a run, counted in flight, cancelled when the client goes away. */
  private start(req: FastifyRequest, reply: FastifyReply, request: ModelInferRequest, requestType: 'stream' | 'unary') {
    const { state, core } = this.opts;
    const abort = new AbortController();
    const started: StartedRun = core.start(request, {
      signal: abort.signal,
      requestType,
      headers: (name) => req.headers[name],
      trace: req.headers.traceparent === undefined ? undefined : traceContextOf(req.headers.traceparent, req.headers.tracestate),
      operation: `${req.method} ${req.routeOptions.url ?? req.url}`,
    });
    const onClose = (): void => {
      if (!reply.raw.writableFinished) abort.abort(new CancelledError());
    };
    reply.raw.on('close', onClose);
    state.inflight++;
    return {
      started,
      abort,
      done: () => {
        state.inflight--;
      },
    };
  }
}
