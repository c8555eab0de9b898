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

  /** Counts a dispatched request; returns the callbacks that end its phases (each effective once). */
  start(id: bigint, promptTokens: number): { firstOutput(): void; end(): void } {
    let load = this.loads.get(id);
    if (!load) this.loads.set(id, (load = { inflight: 0, prefillTokens: 0 }));
    const l = load;
    l.inflight++;
    l.prefillTokens += promptTokens;
    let prefilling = true;
    let open = true;
    const firstOutput = (): void => {
      if (!prefilling) return;
      prefilling = false;
      l.prefillTokens -= promptTokens;
    };
    return {
      firstOutput,
      end: () => {
        if (!open) return;
        open = false;
        firstOutput();
        l.inflight--;
      },
    };
  }
}
