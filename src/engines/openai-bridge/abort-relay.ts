/**
 * A request's one listener on the caller's signal, for its whole life: an abort goes to the stage
 * running (the call until its head, then the answer). One listener instead of one per stage: adding
 * and removing one costs a few µs per request.
 */
export class AbortRelay {
  stage: (() => void) | null = null;

  handleEvent(): void {
    this.stage?.();
  }
}
