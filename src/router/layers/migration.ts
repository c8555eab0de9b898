// Migration: when the worker serving a request is lost (WorkerLostError), the request goes on at
// another instance. Before its first output it is simply retried, whatever the migration limit:
// nothing has reached the client yet. Once it has answered, it moves only within the limit, and only
// if its state can: it is re-sent with every token generated so far appended to its prompt and its
// budget reduced by as many, so the caller's stream continues with no gap and no repeat. The lost
// instance is excluded for the rest of the request; a request pinned to an instance never moves.
// When no attempt is left, the original error ends the stream once.
import { endLater, iterableOf, pushItems, WorkerLostError, type MigrationType, type PushingIterator, type StreamSink } from '../../protocols/index.js';
import type { ResumableRequests } from '../resumable-requests.js';
import type { Dispatch, Route, RoutingLayer } from '../route.js';
import type { RouterView } from '../router-view.js';
import type { Migration } from './migration-settings.js';

export function migration<Req, Out>(router: Pick<RouterView<Req, Out>, 'instances' | 'requests' | 'migration'>): RoutingLayer<Req, Out> {
  return (next) => (route) => {
    // The first dispatch stays synchronous: routing errors (no workers, unknown pinned instance,
    // all busy) reach the caller before it commits to a response.
    const first = next(route);
    return iterableOf(() => new Attempts(router, next, route, first[Symbol.asyncIterator]()));
  };
}

/**
 * One request's attempts, from the first dispatch to its last output or final error, as one
 * iterator over them, no generator (the token path is hot): one promise per output when pulled,
 * none of its own when pushed.
 */
class Attempts<Req, Out> implements PushingIterator<Out> {
  private readonly settings: Migration<Req, Out>;
  private readonly resumable: ResumableRequests<Req, Out> | null;
  /** Moves left once answered; also 0 when the request's state cannot move. */
  private budget: number;
  private readonly promptLength: number;
  /** Every token generated so far, while the request may still move. */
  private generated: number[] | null = null;
  /** The instances this request lost; made at its first loss. */
  private excluded: Set<bigint> | null = null;
  /** Tokens appended to the prompt of the attempt in flight. */
  private replayed = 0;
  private answered = false;
  private finished = false;
  /** The attempt in flight: its route, and when it is a re-send, what caused it. */
  private current: Route<Req, Out>;
  private pending: { type: MigrationType; since: number } | null = null;
  private closed = false;
  /** A bare `cancelled` finish the client did not ask for, held until the attempt ends (see the module comment). */
  private held: Out | null = null;
  /** The pull handlers, made on the first pull. */
  private onOutput: ((r: IteratorResult<Out>) => IteratorResult<Out> | Promise<IteratorResult<Out>>) | null = null;
  private onError: ((err: unknown) => IteratorResult<Out> | Promise<IteratorResult<Out>>) | null = null;

  constructor(
    private readonly router: Pick<RouterView<Req, Out>, 'instances' | 'requests' | 'migration'>,
    private readonly dispatch: Dispatch<Req, Out>,
    private readonly route: Route<Req, Out>,
    /** The attempt in flight's stream. */
    private outputs: AsyncIterator<Out>,
  ) {
    this.settings = router.migration;
    this.resumable = this.settings.resumable;
    this.current = route;
    this.budget = this.resumable ? this.settings.limit : 0;
    this.promptLength = this.resumable?.promptLength(route.request) ?? 0;
    const unmovable = this.budget > 0 ? this.resumable!.unmovable(route.request) : null;
    if (unmovable) {
      this.settings.logger.warn({ request_id: route.ctx.requestId }, `migration disabled: ${unmovable}`);
      this.budget = 0;
    }
    if (this.tooLong(0)) this.budget = 0;
  }

  next(): Promise<IteratorResult<Out>> {
    if (this.closed) return Promise.resolve({ done: true, value: undefined });
    // The handlers are made on the first pull: a pushed stream never needs them.
    return this.outputs.next().then((this.onOutput ??= (r) => this.output(r)), (this.onError ??= (err) => this.failed(err)));
  }

  /** Outputs pushed, attempt after attempt: a re-send's outputs go on to the same sink. */
  pushTo(sink: StreamSink<Out>): void {
    if (this.closed) {
      endLater(sink);
      return;
    }
    pushItems(this.outputs, new AttemptSink(this, this.outputs, sink));
  }

  /** An output the attempt `from` pushed, for `sink` unless the request moved on or closed. */
  pushedItem(from: AsyncIterator<Out>, sink: StreamSink<Out>, out: Out): void {
    if (this.closed || this.outputs !== from || this.hold(out)) return;
    sink.item(this.accept(out));
  }

  pushedEnd(from: AsyncIterator<Out>, sink: StreamSink<Out>): void {
    if (this.closed || this.outputs !== from) return;
    const held = this.release();
    if (held !== null) sink.item(held);
    this.settle();
    this.closed = true;
    sink.end();
  }

  pushedFailure(from: AsyncIterator<Out>, sink: StreamSink<Out>, err: unknown): void {
    if (this.closed || this.outputs !== from) return;
    this.held = null;
    let moved: boolean;
    try {
      moved = this.moveAfter(err);
    } catch (final) {
      this.closed = true;
      sink.fail(final);
      return;
    }
    if (moved) {
      this.pushTo(sink);
      return;
    }
    this.closed = true;
    sink.end();
  }

  return(value?: unknown): Promise<IteratorResult<Out>> {
    this.closed = true;
    return this.outputs.return?.(value) ?? Promise.resolve({ done: true, value: undefined });
  }

  private output(r: IteratorResult<Out>): IteratorResult<Out> | Promise<IteratorResult<Out>> {
    if (!r.done) return this.hold(r.value) ? this.next() : { done: false, value: this.accept(r.value) };
    this.settle();
    this.closed = true;
    const held = this.release();
    return held === null ? r : { done: false, value: held };
  }

  /** A failed attempt: the next one's first output, or the error when the request cannot go on. */
  private failed(err: unknown): Promise<IteratorResult<Out>> | IteratorResult<Out> {
    this.closed = true;
    this.held = null;
    let moved: boolean;
    try {
      moved = this.moveAfter(err);
    } catch (final) {
      return Promise.reject(final);
    }
    if (!moved) return { done: true, value: undefined };
    this.closed = false;
    return this.next();
  }

  /**
   * After a failed attempt: true with the next attempt in flight, false when the stream ends quietly
   * (lost after its finishing output); throws the error that ends the request.
   */
  private moveAfter(err: unknown): boolean {
    this.settle();
    if (err instanceof WorkerLostError && this.finished) return false;
    this.outputs = this.resend(err)[Symbol.asyncIterator]();
    return true;
  }

  /** True when `out` is a bare `cancelled` finish the client did not ask for: it waits for the attempt's end. */
  private hold(out: Out): boolean {
    if (this.held !== null || !this.resumable?.cancelFrame(out) || this.route.ctx.signal.aborted) return false;
    this.held = out;
    return true;
  }

  /** The held finish, accepted, once the attempt ended without an error. */
  private release(): Out | null {
    const held = this.held;
    this.held = null;
    return held === null ? null : this.accept(held);
  }

  /** Records an output on its way to the caller, restated for the tokens a re-send replayed. */
  private accept(out: Out): Out {
    this.settle();
    this.answered = true;
    const r = this.resumable;
    if (!r) return out;
    if (r.finished(out)) this.finished = true;
    if (this.budget > 0) {
      const generated = (this.generated ??= []);
      // One push per id: a spread call copies its argument list first.
      const ids = r.tokens(out);
      for (let i = 0; i < ids.length; i++) generated.push(ids[i]!);
      if (this.tooLong(generated.length)) this.budget = 0;
    }
    return this.replayed > 0 ? r.restate(out, this.replayed) : out;
  }

  private tooLong(generated: number): boolean {
    const max = this.settings.maxSeqLen;
    return max !== null && this.promptLength + generated > max;
  }

  /** The next attempt after `err`, or `err` rethrown when the request cannot go on. */
  private resend(err: unknown): AsyncIterable<Out> {
    if (!(err instanceof WorkerLostError) || this.route.ctx.signal.aborted) throw err;
    const lost = err.instanceId ?? this.current.target?.id;
    const excluded = (this.excluded ??= new Set());
    if (lost !== undefined) excluded.add(lost);
    if (this.router.requests.pinnedInstance(this.route.request) !== null) throw err;
    const type: MigrationType = this.answered ? 'ongoing_request' : 'new_request';
    if (this.answered) {
      if (this.budget <= 0) throw err;
      this.budget--;
    }
    const candidates = this.router.instances.filter((i) => !excluded.has(i.id));
    if (candidates.length === 0) throw err;
    const replay = (this.answered && this.generated) || [];
    const request = replay.length > 0 ? this.resumable!.resume(this.route.request, replay) : this.route.request;
    this.settings.logger.warn(
      { request_id: this.route.ctx.requestId, lost: lost?.toString(16), replayedTokens: replay.length, err: err.message },
      this.answered ? 'worker lost mid-stream: re-sending the request with its generated tokens' : 'worker lost before answering: retrying on another instance',
    );
    this.replayed = replay.length;
    this.current = { request, ctx: this.route.ctx, candidates, target: null, excluded };
    this.pending = { type, since: performance.now() };
    try {
      return this.dispatch(this.current);
    } catch {
      this.settle();
      throw err;
    }
  }

  /** Reports the re-send in flight, once: its first output, end or failure resolved it. */
  private settle(): void {
    if (!this.pending) return;
    const { type, since } = this.pending;
    this.pending = null;
    this.route.ctx.migrated?.(type, (performance.now() - since) / 1000);
  }
}

/** One attempt's pushed outputs, handed to the request's attempts with the attempt they came from. */
class AttemptSink<Req, Out> implements StreamSink<Out> {
  constructor(
    private readonly attempts: Attempts<Req, Out>,
    private readonly from: AsyncIterator<Out>,
    private readonly sink: StreamSink<Out>,
  ) {}

  /** As the request's sink: the attempts copy an output's tokens, and a held finish is the attempt's last output. */
  get readsInPlace(): boolean {
    return this.sink.readsInPlace === true;
  }

  item(out: Out): void {
    this.attempts.pushedItem(this.from, this.sink, out);
  }

  end(): void {
    this.attempts.pushedEnd(this.from, this.sink);
  }

  fail(err: unknown): void {
    this.attempts.pushedFailure(this.from, this.sink, err);
  }
}
