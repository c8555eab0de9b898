// A request message that does not decode. grpc-js answers those itself with INTERNAL ("Error
// deserializing request"), a server fault to the client; decoded here instead, a broken message
// becomes a marked value the handlers answer as INVALID_ARGUMENT (unary) or, as upstream does on a
// stream, an in-stream `error_message` after which the stream goes on.

import type * as grpc from '@grpc/grpc-js';
import { ValidationError } from '../../protocols/index.js';

const MALFORMED = Symbol('malformed request message');

interface Malformed {
  [MALFORMED]: string;
}

/** The service with every request decoder catching its own failures. */
export function withTolerantDecoding(service: grpc.ServiceDefinition): grpc.ServiceDefinition {
  const tolerant = (method: grpc.MethodDefinition<unknown, unknown>) => ({
    ...method,
    requestDeserialize: (bytes: Buffer): unknown => {
      try {
        return method.requestDeserialize(bytes);
      } catch (err) {
        return { [MALFORMED]: (err as Error).message } satisfies Malformed;
      }
    },
  });
  return Object.fromEntries(Object.entries(service).map(([name, method]) => [name, tolerant(method)]));
}

/** The error for a message that did not decode, or undefined for a decoded one. */
export function malformedMessageError(message: unknown): ValidationError | undefined {
  if (typeof message !== 'object' || message === null || !(MALFORMED in message)) return undefined;
  return new ValidationError(`Malformed request message: ${(message as Malformed)[MALFORMED]}`);
}
