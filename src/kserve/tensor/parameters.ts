import { ValidationError, type ParameterValue, type Parameters } from '../../protocols/index.js';
import type { InferParameter, InferParameters, ParameterChoice } from '../wire-types.js';

const CHOICES: readonly ParameterChoice[] = ['bool_param', 'int64_param', 'string_param', 'double_param', 'uint64_param'];

/** The set field of a parameter: as decoded (`parameter_choice`), or as built here (the one field present). */
function choiceOf(p: InferParameter): ParameterChoice | undefined {
  return p.parameter_choice ?? CHOICES.find((c) => p[c] !== undefined);
}

/** KServe `InferParameter` → upstream ParameterValue; an empty oneof is an error, as upstream. */
export function fromInferParameter(key: string, p: InferParameter): ParameterValue {
  switch (p.parameter_choice) {
    case 'bool_param':
      return { bool: p.bool_param! };
    case 'int64_param':
      return { int64: Number(p.int64_param) };
    case 'string_param':
      return { string: p.string_param! };
    case 'double_param':
      return { double: p.double_param! };
    case 'uint64_param':
      return { uint64: Number(p.uint64_param) };
    default:
      throw new ValidationError(`Parameter '${key}' has no value`);
  }
}

export function toInferParameter(v: ParameterValue): InferParameter {
  if ('bool' in v) return { bool_param: v.bool };
  if ('int64' in v) return { int64_param: v.int64 };
  if ('string' in v) return { string_param: v.string };
  if ('double' in v) return { double_param: v.double };
  return { uint64_param: v.uint64 };
}

/** Converts a map, or returns undefined for an empty one (upstream omits empty maps). */
export function fromInferParameters(map: InferParameters | undefined): Parameters | undefined {
  if (!map) return undefined;
  let out: Parameters | undefined;
  for (const key in map) {
    out ??= {};
    out[key] = fromInferParameter(key, map[key]!);
  }
  return out;
}

export function toInferParameters(params: Parameters | undefined): InferParameters {
  const out: InferParameters = {};
  if (params) for (const key in params) out[key] = toInferParameter(params[key]!);
  return out;
}

/** The plain JS value of a parameter (numbers, strings, booleans), for sampling options. */
export function parameterScalar(p: InferParameter): boolean | number | string | undefined {
  switch (choiceOf(p)) {
    case 'bool_param':
      return p.bool_param;
    case 'int64_param':
      return Number(p.int64_param);
    case 'uint64_param':
      return Number(p.uint64_param);
    case 'double_param':
      return p.double_param;
    case 'string_param':
      return p.string_param;
    default:
      return undefined;
  }
}
