// The `{status, message}` body the probes answer with, as /openapi.json describes it.
export const STATUS = (example: string) => ({ type: 'object', properties: { status: { type: 'string', example }, message: { type: 'string' } }, additionalProperties: true });
