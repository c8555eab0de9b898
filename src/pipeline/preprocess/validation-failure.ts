// A request that deserializes but breaks a rule reads `Validation: <what>`, the text the client
// sees (upstream's words). A value of the wrong type is a deserialization failure instead: json-types.ts.

import { ValidationError } from '../../protocols/index.js';

export const VALIDATION_PREFIX = 'Validation: ';

export function fail(message: string): never {
  throw new ValidationError(VALIDATION_PREFIX + message);
}
