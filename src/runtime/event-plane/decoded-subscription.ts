import type { EventPlane } from './types.js';

/**
 * Subscribes to JSON messages on `subject`: each payload goes through `decode`; those it rejects go
 * to `onInvalid` instead of the handler.
 */
export function subscribeDecoded<T>(
  plane: EventPlane,
  subject: string,
  decode: (text: string) => T,
  handler: (message: T) => void,
  onInvalid?: (err: Error) => void,
): Promise<() => void> {
  return plane.subscribe(subject, (payload) => {
    let message: T;
    try {
      message = decode(payload.toString('utf8'));
    } catch (err) {
      onInvalid?.(err as Error);
      return;
    }
    handler(message);
  });
}
