// `--router-conditional-disagg` and its JSON settings, checked at startup with upstream's words.
import { ConfigError, type Config } from '../../config/index.js';
import {
  CONDITIONAL_DISAGG_POLICIES,
  DEFAULT_EFF_ISL_RATIO_THRESHOLD,
  DEFAULT_EFF_ISL_THRESHOLD,
  LOAD_AWARE_POLICIES,
  type ConditionalDisaggPolicy,
  type ConditionalDisaggSettings,
} from '../../router/index.js';

const FLAG = '--router-conditional-disagg-config';

/** The JSON's fields, each with the check its value must pass and the phrase naming what it must be. */
const FIELDS: Readonly<Record<string, [valid: (v: unknown) => boolean, mustBe: string]>> = {
  policy: [(v) => typeof v === 'string' && (CONDITIONAL_DISAGG_POLICIES as readonly string[]).includes(v), `one of ${CONDITIONAL_DISAGG_POLICIES.map((p) => `'${p}'`).join(', ')}`],
  eff_isl_threshold: [(v) => Number.isSafeInteger(v) && (v as number) >= 0, 'an integer >= 0'],
  eff_isl_ratio_threshold: [(v) => typeof v === 'number' && v >= 0 && v <= 1, 'a number in [0.0, 1.0]'],
  prefill_busy_threshold: [(v) => v === null || (typeof v === 'number' && Number.isFinite(v) && v >= 0), 'a number >= 0'],
  decode_busy_threshold: [(v) => v === null || (typeof v === 'number' && Number.isFinite(v) && v >= 0), 'a number >= 0'],
};

function parseJson(text: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ConfigError(`${FLAG} must be a JSON object`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new ConfigError(`${FLAG} must be a JSON object`);
  const fields = parsed as Record<string, unknown>;
  const unknown = Object.keys(fields).filter((k) => !Object.hasOwn(FIELDS, k)).sort();
  if (unknown.length > 0) throw new ConfigError(`${FLAG} has unknown field(s): ${unknown.join(', ')}`);
  for (const [key, value] of Object.entries(fields)) {
    const [valid, mustBe] = FIELDS[key]!;
    if (!valid(value)) throw new ConfigError(`${FLAG} ${key} must be ${mustBe}, got ${JSON.stringify(value)}`);
  }
  return fields;
}

/** The settings, or null when conditional disaggregation is off; throws on a misconfiguration. */
export function conditionalDisaggSettings(config: Config): ConditionalDisaggSettings | null {
  const text = config.routerConditionalDisaggConfig;
  if (!config.routerConditionalDisagg) {
    if (text !== undefined) throw new ConfigError(`${FLAG} requires --router-conditional-disagg`);
    return null;
  }
  if (config.routerMode !== 'kv') throw new ConfigError(`--router-conditional-disagg requires --router-mode=kv (got --router-mode ${config.routerMode})`);
  if (!config.routerKvEvents) throw new ConfigError('--router-conditional-disagg requires --router-kv-events');
  const f = text === undefined ? {} : parseJson(text);
  const policy = (f.policy as ConditionalDisaggPolicy | undefined) ?? 'isl_bounding';
  // The load-aware policies compare the prefill pool with a busy line: the JSON's, else --router-queue-threshold's.
  const prefillBusyThreshold = (f.prefill_busy_threshold as number | null | undefined) ?? config.routerQueueThreshold ?? null;
  if (LOAD_AWARE_POLICIES.has(policy) && prefillBusyThreshold === null) {
    throw new ConfigError(
      `conditional_disagg policy='${policy}' needs prefill_busy_threshold, but neither ${FLAG} {"prefill_busy_threshold": ...} nor --router-queue-threshold is set`,
    );
  }
  return {
    policy,
    effIslThreshold: (f.eff_isl_threshold as number | undefined) ?? DEFAULT_EFF_ISL_THRESHOLD,
    effIslRatioThreshold: (f.eff_isl_ratio_threshold as number | undefined) ?? DEFAULT_EFF_ISL_RATIO_THRESHOLD,
    prefillBusyThreshold,
    decodeBusyThreshold: (f.decode_busy_threshold as number | null | undefined) ?? null,
  };
}
