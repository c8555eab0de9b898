// Is an upstream up? Polls its `/health` (vLLM, SGLang, llama.cpp) and, where that route does not
// exist, `/v1/models` (Ollama and other OpenAI-compatible servers), and tells of each change. A
// healthy upstream goes down after FAILURES_BEFORE_DOWN failed probes in a row (one slow answer,
// e.g. during a long prefill, is not an outage); one good probe brings it back.

export interface UpstreamHealthOptions {
  baseUrl: string;
  intervalMs: number;
  /** A probe slower than this counts as a failure. */
  timeoutMs: number;
  headers?: Readonly<Record<string, string>>;
  /** Called with the new state on each change (and once with the first probe's result). */
  onChange(healthy: boolean, reason: string): void | Promise<void>;
}

const PROBES = ['/health', '/v1/models'] as const;

export const FAILURES_BEFORE_DOWN = 3;

export class UpstreamHealth {
  private timer: NodeJS.Timeout | null = null;
  private state: boolean | null = null;
  private failures = 0;
  private stopped = false;

  constructor(private readonly opts: UpstreamHealthOptions) {}

  get healthy(): boolean {
    return this.state === true;
  }

  /** Probes once now, then every interval. Resolves after the first probe. */
  async start(): Promise<void> {
    await this.tick();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** One probe: the first route that answers decides; a 404 moves to the next. */
  async probe(): Promise<{ healthy: boolean; reason: string }> {
    let reason = 'no health route answered';
    for (const path of PROBES) {
      try {
        const res = await fetch(`${this.opts.baseUrl}${path}`, { headers: this.opts.headers, signal: AbortSignal.timeout(this.opts.timeoutMs) });
        await res.body?.cancel();
        if (res.status === 404) {
          reason = `${path} answered 404`;
          continue;
        }
        return { healthy: res.ok, reason: `${path} answered ${res.status}` };
      } catch (err) {
        const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message;
        return { healthy: false, reason: `${path}: ${cause}` };
      }
    }
    return { healthy: false, reason };
  }

  private async tick(): Promise<void> {
    await this.check();
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.tick(), this.opts.intervalMs);
    this.timer.unref();
  }

  /** One probe, and the change it makes, if any. */
  async check(): Promise<void> {
    const { healthy, reason } = await this.probe();
    if (this.stopped) return;
    this.failures = healthy ? 0 : this.failures + 1;
    const settled = healthy || this.state !== true || this.failures >= FAILURES_BEFORE_DOWN;
    if (settled && healthy !== this.state) {
      this.state = healthy;
      await this.opts.onChange(healthy, reason);
    }
  }
}
