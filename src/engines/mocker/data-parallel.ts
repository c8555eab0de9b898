// `--data-parallel-size N`: one worker instance in front of N engine cores, one per dp rank (upstream
// mocker). A request names its rank in `routing.dp_rank` (the KV router sets it); one without a rank
// goes round-robin across the cores.
import { ValidationError, type EngineClient, type GenerateContext, type LLMEngineOutput, type PreprocessedRequest } from '../../protocols/index.js';

async function* failing(err: Error): AsyncGenerator<LLMEngineOutput> {
  throw err;
}

export class DataParallelEngine implements EngineClient {
  private next = 0;

  /** `cores[r]` serves rank r. */
  constructor(private readonly cores: readonly EngineClient[]) {
    if (cores.length === 0) throw new ValidationError('a data-parallel engine needs at least one core');
  }

  /** A rank out of range fails the request's stream with upstream's message. */
  generate(request: PreprocessedRequest, ctx: GenerateContext): AsyncIterable<LLMEngineOutput> {
    const size = this.cores.length;
    const rank = request.routing?.dp_rank;
    if (rank == null) return this.cores[this.next++ % size]!.generate(request, ctx);
    if (!Number.isInteger(rank) || rank < 0 || rank >= size) {
      return failing(new ValidationError(`dp_rank ${String(rank)} is out of bounds for dp_size ${size}`, { dp_rank: rank }));
    }
    return this.cores[rank]!.generate(request, ctx);
  }
}
