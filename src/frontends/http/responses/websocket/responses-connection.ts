// One Responses WebSocket: its `response.create` events answered one after another, each as a POST
// with `stream: true` would be (the same checks, generation and events, with their sequence
// numbers), the events written as text messages. A continuation reads the conversation from this
// connection's last responses first (connection-responses.ts), else from the response store; a
// continuation that fails makes its previous response unknown to the connection. What goes wrong
// with an event is an error event, and the connection stays open for the next one.

import { randomUUID } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { RawData, WebSocket } from 'ws';
import { ResponseFold, routingFromHeaders, type RequestLifecycle } from '../../../../pipeline/index.js';
import { CancelledError, isDynamoError, ValidationError } from '../../../../protocols/index.js';
import type { RouteContext } from '../../http-route.js';
import {
  openModelCall,
  promptTokensOf,
  startGeneration,
  streamSingleChoice,
  type CallSpec,
  type ClosableOut,
  type EventOut,
  type ModelCall,
} from '../../model-route/index.js';
import { previousResponseId } from '../request.js';
import type { ResponseAnswer } from '../response-events.js';
import type { PreparedResponse, ResponsesRoute } from '../responses-route.js';
import type { StoredResponses } from '../stored-responses.js';
import { errorEvent, parseClientEvent, type CreateEvent } from './client-events.js';
import { ConnectionResponses } from './connection-responses.js';

type Json = Record<string, unknown>;

/** How many of its last responses a connection keeps for continuations. */
const KEPT_RESPONSES = 8;
/** Events received and not yet answered, beyond which the next is refused (a client flooding the queue). */
const MAX_WAITING = 16;

/** What every connection of the service shares. */
export interface ConnectionContext {
  ctx: RouteContext;
  /** The POST route: its preparation and events. */
  route: ResponsesRoute;
  stored: StoredResponses;
  /** Where the connection was opened, for traces. */
  path: string;
  /** Closed after this long without an event while nothing is being answered. */
  idleTimeoutMs: number;
}

export class ResponsesConnection {
  private readonly responses = new ConnectionResponses(KEPT_RESPONSES);
  /** Who the connection is (its upgrade's API key): the owner of what it stores and reads. */
  private readonly owner: string | null;
  /** Events are answered in the order they came. */
  private queue: Promise<void> = Promise.resolve();
  private waiting = 0;
  private idle: NodeJS.Timeout | undefined;
  /** Aborts the response being generated when the connection goes. */
  private current: AbortController | undefined;
  private readonly out: SocketOut;
  /** How each event's model call is opened: the POST's API and metrics label, always a stream. */
  private readonly spec: CallSpec;

  constructor(
    private readonly socket: WebSocket,
    /** The upgrade request: its headers apply to every response of the connection. */
    private readonly upgrade: FastifyRequest,
    private readonly shared: ConnectionContext,
  ) {
    this.owner = shared.stored.ownerOf(upgrade.headers);
    const { route } = shared;
    this.spec = { api: route.api, endpoint: route.endpoint, modelName: (body) => route.modelName(body), streaming: () => true };
    this.out = new SocketOut(socket);
    socket.on('message', (data, isBinary) => this.received(data, isBinary));
    socket.on('close', () => this.gone());
    this.armIdle();
  }

  /** The service is stopping: the client may reconnect elsewhere (1001, going away). */
  shutdown(): void {
    this.socket.close(1001, 'server shutting down');
  }

  private received(data: RawData, isBinary: boolean): void {
    if (this.waiting >= MAX_WAITING) {
      this.refuse(new ValidationError(`Too many events waiting: ${MAX_WAITING} are not answered yet; wait for a response to finish`));
      return;
    }
    this.waiting++;
    clearTimeout(this.idle);
    this.queue = this.queue
      .then(() => this.answer(data, isBinary))
      .finally(() => {
        if (--this.waiting === 0) this.armIdle();
      });
  }

  private async answer(data: RawData, isBinary: boolean): Promise<void> {
    if (this.out.isClosed) return;
    let event: CreateEvent;
    try {
      event = parseClientEvent(data, isBinary);
    } catch (err) {
      this.refuse(err);
      return;
    }
    await this.create(event);
  }

  /** One response: its events, or an error event; never throws. */
  private async create({ body, generate }: CreateEvent): Promise<void> {
    const { ctx, route, stored } = this.shared;
    const requestId = randomUUID();
    // Aborted from here on if the connection goes, before generation starts too.
    const abort = (this.current = new AbortController());
    let request: RequestLifecycle | undefined;
    let previous: string | null = null;
    let counted = false;
    try {
      previous = previousResponseId(body);
      const opened = openModelCall(ctx, this.spec, { body, requestId, headers: this.upgrade.headers, operation: `response.create ${this.shared.path}` });
      request = opened.request;
      const routing = routingFromHeaders((name) => this.upgrade.headers[name]);
      const earlier = previous === null ? [] : (this.responses.conversation(previous) ?? (await stored.history(previous, this.owner)));
      const prepared = await route.prepareWith(body, opened.served, routing, this.owner, earlier);
      ctx.state.inflight++;
      counted = true;
      const call: ModelCall = { served: opened.served, requestId, request, signal: abort.signal };
      const response = (await (generate ? this.generated(call, prepared) : this.ungenerated(call, prepared))).result() as Json | undefined;
      if (response?.status === 'failed') {
        if (previous !== null) this.responses.forget(previous);
      } else if (response) {
        this.responses.keep(String(response.id), [...earlier, ...prepared.inputItems, ...(response.output as Json[])]);
      }
    } catch (err) {
      request?.fail(err);
      if (!isDynamoError(err)) this.upgrade.log.error({ err }, 'response.create failed');
      if (previous !== null) this.responses.forget(previous);
      this.refuse(err);
    } finally {
      this.current = undefined;
      if (counted) ctx.state.inflight--;
    }
  }

  /** Generates the response, its events streamed as they come. */
  private async generated(call: ModelCall, prepared: PreparedResponse): Promise<ResponseAnswer> {
    const generation = await startGeneration(call, prepared, this.shared.ctx.generation);
    const log = this.upgrade.log;
    const events = await streamSingleChoice(generation, this.upgrade, this.out, (out, fold) => this.shared.route.events(prepared, out, fold, log));
    // Stored before the next event of this connection is answered, which may continue it.
    await events.settled?.();
    return events;
  }

  /** A warm-up (`generate: false`): prepared like any response, then completed with no output. */
  private async ungenerated(call: ModelCall, prepared: PreparedResponse): Promise<ResponseAnswer> {
    call.request.tokenized(prepared.runs);
    const fold = new ResponseFold({ promptTokens: promptTokensOf(prepared), collectText: false, request: call.request });
    const events = this.shared.route.events(prepared, this.out, fold, this.upgrade.log);
    events.start();
    events.finishUngenerated();
    call.request.succeed();
    await events.settled?.();
    return events;
  }

  private refuse(err: unknown): void {
    this.out.send(errorEvent(err, this.shared.ctx.state.overloadStatus));
  }

  private armIdle(): void {
    if (this.out.isClosed) return;
    const secs = this.shared.idleTimeoutMs / 1000;
    this.idle = setTimeout(() => this.socket.close(1000, `idle for ${secs} s`), this.shared.idleTimeoutMs);
    this.idle.unref();
  }

  private gone(): void {
    clearTimeout(this.idle);
    this.current?.abort(new CancelledError('The WebSocket closed'));
  }
}

/** A response's events as the socket's text messages, until it closes (or starts closing). */
class SocketOut implements EventOut, ClosableOut {
  constructor(private readonly socket: WebSocket) {}

  get isClosed(): boolean {
    return this.socket.readyState !== this.socket.OPEN;
  }

  event(_type: string, data: string): void {
    this.send(data);
  }

  /** A response ends with its final event; the connection goes on. */
  end(): void {}

  send(data: string): void {
    if (!this.isClosed) this.socket.send(data);
  }
}
