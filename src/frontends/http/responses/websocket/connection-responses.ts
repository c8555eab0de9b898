// The responses of one WebSocket connection that a continuation reads without any store: what lets
// `store: false` chain through `previous_response_id`. Each is kept with the whole conversation it
// ends (the items a response continuing it reads first), so a chain never walks links. Only the
// last few are kept (the reference keeps the latest one; a few more let a client branch from an
// earlier turn), and they go with the connection.

type Item = Record<string, unknown>;

export class ConnectionResponses {
  /** By response id, oldest first. */
  private readonly kept = new Map<string, readonly Item[]>();

  constructor(private readonly capacity: number) {}

  /** The conversation response `id` ended: its chain's input and output items, in order; undefined when not kept. */
  conversation(id: string): readonly Item[] | undefined {
    return this.kept.get(id);
  }

  /** Keeps response `id` with its conversation; the oldest kept one goes when there are too many. */
  keep(id: string, conversation: readonly Item[]): void {
    this.kept.delete(id);
    this.kept.set(id, conversation);
    for (const oldest of this.kept.keys()) {
      if (this.kept.size <= this.capacity) break;
      this.kept.delete(oldest);
    }
  }

  /** A continuation of `id` failed: it is not continued from here again. */
  forget(id: string): void {
    this.kept.delete(id);
  }
}
