// Engines that lose their worker: they serve another engine's stream and then fail as a lost
// worker does (WorkerLostError), before any output or after a number of outputs.
import { WorkerLostError, type EngineClient, type GenerateContext, type LLMEngineOutput, type PreprocessedRequest } from '../../src/protocols/index.js';

/** `engine`'s answers, cut by a WorkerLostError after `dieAfter` outputs (0: before any; Infinity: never). */
export function losingEngine(engine: EngineClient, dieAfter: number, name = 'worker', seen: PreprocessedRequest[] = []): EngineClient {
  return {
    async *generate(req: PreprocessedRequest, ctx: GenerateContext): AsyncGenerator<LLMEngineOutput> {
      seen.push(req);
      if (dieAfter === 0) throw new WorkerLostError(`${name} unreachable`);
      let sent = 0;
      for await (const out of engine.generate(req, ctx)) {
        yield out;
        if (++sent >= dieAfter) throw new WorkerLostError(`${name} lost mid-stream`);
      }
    },
  };
}
