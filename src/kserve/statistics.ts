// Per-model inference counters and durations behind the ModelStatistics RPC (Triton's shape).

interface Duration {
  count: number;
  ns: bigint;
}

interface ModelCounters {
  lastInference: number;
  inferenceCount: number;
  executionCount: number;
  success: Duration;
  fail: Duration;
  computeInput: Duration;
  computeInfer: Duration;
}

const zero = (): Duration => ({ count: 0, ns: 0n });

function durationMessage(d: Duration): { count: string; ns: string } {
  return { count: String(d.count), ns: d.ns.toString() };
}

export class ModelStatisticsTracker {
  private readonly models = new Map<string, ModelCounters>();

  private counters(model: string): ModelCounters {
    let c = this.models.get(model);
    if (!c) {
      c = { lastInference: 0, inferenceCount: 0, executionCount: 0, success: zero(), fail: zero(), computeInput: zero(), computeInfer: zero() };
      this.models.set(model, c);
    }
    return c;
  }

  /**
   * Records one request: `startNs` when it arrived, `inputDoneNs` when conversion/preprocessing
   * finished, and the end time now.
   */
  record(model: string, ok: boolean, startNs: bigint, inputDoneNs: bigint | undefined): void {
    const end = process.hrtime.bigint();
    const c = this.counters(model);
    c.lastInference = Date.now();
    c.executionCount++;
    const total = ok ? c.success : c.fail;
    total.count++;
    total.ns += end - startNs;
    if (!ok) return;
    c.inferenceCount++;
    if (inputDoneNs !== undefined) {
      c.computeInput.count++;
      c.computeInput.ns += inputDoneNs - startNs;
      c.computeInfer.count++;
      c.computeInfer.ns += end - inputDoneNs;
    }
  }

  /** The `ModelStatistics` message for a model (zeros when it has served nothing yet). */
  message(model: string): Record<string, unknown> {
    const c = this.models.get(model) ?? this.counters(model);
    return {
      name: model,
      version: '1',
      last_inference: String(c.lastInference),
      inference_count: String(c.inferenceCount),
      execution_count: String(c.executionCount),
      inference_stats: {
        success: durationMessage(c.success),
        fail: durationMessage(c.fail),
        queue: durationMessage(zero()),
        compute_input: durationMessage(c.computeInput),
        compute_infer: durationMessage(c.computeInfer),
        compute_output: durationMessage(zero()),
        cache_hit: durationMessage(zero()),
        cache_miss: durationMessage(zero()),
      },
      batch_stats: [],
      memory_usage: [],
      response_stats: {},
    };
  }
}
