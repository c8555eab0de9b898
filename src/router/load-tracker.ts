// Router-side load per instance: requests in flight and prompt tokens not yet prefilled (from
// dispatch until the first output). Least-loaded routing and busy detection read it.

interface InstanceLoad {
  inflight: number;
  prefillTokens: number;
}

export class LoadTracker {
  private readonly loads = new Map<bigint, InstanceLoad>();

  inflight(id: bigint): number {
    return this.loads.get(id)?.inflight ?? 0;
  }

  prefillTokens(id: bigint): number {
    return this.loads.get(id)?.prefillTokens ?? 0;
  }

  /** Counts a dispatched request; returns what ends its phases (each effective once). */
  start(id: bigint, promptTokens: number): LoadPhases {
    let load = this.loads.get(id);
    if (!load) this.loads.set(id, (load = { inflight: 0, prefillTokens: 0 }));
    load.inflight++;
    load.prefillTokens += promptTokens;
    return new LoadPhases(load, promptTokens);
  }
}

/** One request's part in its instance's load: prefill until its first output, in flight until its end. */
export class LoadPhases {
  private prefilling = true;
  private open = true;

  constructor(
    private readonly load: InstanceLoad,
    private readonly promptTokens: number,
  ) {}

  firstOutput(): void {
    if (!this.prefilling) return;
    this.prefilling = false;
    this.load.prefillTokens -= this.promptTokens;
  }

  end(): void {
    if (!this.open) return;
    this.open = false;
    this.firstOutput();
    this.load.inflight--;
  }
}
