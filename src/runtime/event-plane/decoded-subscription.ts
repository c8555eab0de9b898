import type { EventPlane } from './types.js';

/**
 * Subscribes to JSON messages on `subject`: each payload goes through `decode`; those it rejects go
 * to `onInvalid` instead of the handler. With `fromValue`, an in-process plane's published values
 * go through it instead, never encoded and parsed.
 */
export function subscribeDecoded<T>(
  plane: EventPlane,
  subject: string,
  decode: (text: string) => T,
  handler: (message: T) => void,
  onInvalid?: (err: Error) => void,
  fromValue?: (value: unknown) => T,
): Promise<() => void> {
  const checked = <V>(read: (input: V) => T) => (input: V): void => {
    let message: T;
    try {
      message = read(input);
    } catch (err) {
      onInvalid?.(err as Error);
      return;
    }
    handler(message);
  };
  const onBytes = checked((payload: Buffer) => decode(payload.toString('utf8')));
  if (fromValue && plane.subscribeValues) return plane.subscribeValues(subject, checked(fromValue), onBytes);
  return plane.subscribe(subject, onBytes);
}
