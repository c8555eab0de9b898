// The streams a process-long part waits on (the router's silence clock, the write coalescer): an
// unordered array whose members know their place, so leaving is a swap with the last. A Set here,
// its size rising and falling with the streams in flight, kept ended streams and what their requests
// held alive through young GCs, which promoted them: several times longer scavenges on the small
// requests' path (bench/RESULTS.md). A member that left is no longer referenced from here.

/** Where a member's place is kept: -1 while it is in no list. */
export interface Place {
  slot: number;
}

export class PlacedList<T> {
  /** The members, in no particular order; read them, change them only through the list. */
  readonly items: T[] = [];

  /** `placeOf` gives the object that keeps a member's place (the member itself, or a part of it). */
  constructor(private readonly placeOf: (item: T) => Place) {}

  get length(): number {
    return this.items.length;
  }

  /** Adds `item` unless it is in already. */
  add(item: T): void {
    const place = this.placeOf(item);
    if (place.slot < 0) place.slot = this.items.push(item) - 1;
  }

  /** Takes `item` out; false when it was not in. */
  remove(item: T): boolean {
    const at = this.placeOf(item).slot;
    if (at < 0) return false;
    this.removeAt(at);
    return true;
  }

  /** Takes out the member at `at`: the last one takes its place. */
  removeAt(at: number): void {
    const items = this.items;
    this.placeOf(items[at]!).slot = -1;
    const last = items.pop()!;
    if (at < items.length) {
      items[at] = last;
      this.placeOf(last).slot = at;
    }
  }
}
