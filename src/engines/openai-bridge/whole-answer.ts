// A non-streamed answer (a short unary request's): its one JSON body read whole, then one engine
// output with every token, the finish and the usage. Reading one body costs a fraction of reading
// the same answer as events, each parsed and turned into an output of its own.
import type { LLMEngineOutput } from '../../protocols/index.js';
import { AnswerReader } from './answer-reader.js';
import { OUTPUTS } from './piece-outputs.js';
import { readChunk, type UpstreamChunkJson } from './upstream-chunk.js';
import { answerFailure, streamedError, upstreamLost } from './upstream-errors.js';

export class WholeAnswer extends AnswerReader {
  private readonly parts: Buffer[] = [];

  body(bytes: Buffer): void {
    if (!this.over) this.parts.push(bytes);
  }

  end(): void {
    if (this.over) return;
    const parts = this.parts;
    let out: LLMEngineOutput | Promise<LLMEngineOutput>;
    try {
      const json = JSON.parse((parts.length === 1 ? parts[0]! : Buffer.concat(parts)).toString('utf8')) as UpstreamChunkJson;
      if (json.error !== undefined) throw streamedError(this.setup.baseUrl, json.error);
      const piece = readChunk(json, this.setup.api);
      if (!piece?.finish) throw upstreamLost(this.setup.baseUrl, 'answered without a finish reason');
      out = OUTPUTS[this.setup.input](piece, this.setup.tokenizer);
    } catch (err) {
      return this.failed(err);
    }
    if (out instanceof Promise) out.then((o) => this.done(o), (err: unknown) => this.failed(err));
    else this.done(out);
  }

  lost(err: Error): void {
    this.failed(err);
  }

  private done(out: LLMEngineOutput): void {
    if (this.over) return;
    this.close();
    this.queue.push(out);
    this.queue.end();
  }

  /** The body broke, the connection went, or the tokenizer failed: a lost worker, unless the caller gave up. */
  private failed(err: unknown): void {
    if (this.over) return;
    this.stop();
    if (this.relay.signal.aborted) return this.queue.end();
    this.queue.fail(answerFailure(this.setup.baseUrl, err, 'answer', 'answer'));
  }

  /** Nothing more is read: the upstream request is aborted (a no-op once its answer is in). */
  stop(): void {
    this.close();
    this.reply.destroy();
  }

  /** The request is over: its relay leaves the caller's signal. */
  private close(): void {
    this.over = true;
    this.parts.length = 0;
    this.relay.release();
  }
}
