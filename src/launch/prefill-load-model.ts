// `--router-prefill-load-model` by name: none (static prompt-side load) or ais (each admitted
// request's prefill duration predicted from its uncached prompt length, so a worker's prompt-side
// load drains as its oldest prefill runs; router/kv/prefill-tracker.ts). Upstream asks NVIDIA's
// AISimulate performance database for the duration; that database is not available here, so `ais`
// uses an analytic predictor: the mocker's own prefill timing model, divided by the tensor-parallel
// size of the perf model config. A database-backed predictor only has to implement `PrefillPredictor`.
import { aisPerfModel, ConfigError, missingAisIdentityFlags, type AisPerfModel, type Config } from '../config/index.js';
import { prefillTimeMs } from '../engines/mocker/index.js';
import type { PrefillPredictor } from '../router/index.js';

type Env = Readonly<Record<string, string | undefined>>;

/** The mocker's polynomial for one request alone, spread over `tp` GPUs (compute-bound prefill). */
export class AnalyticPrefillPredictor implements PrefillPredictor {
  constructor(private readonly tpSize: number) {}

  predictMs(uncachedTokens: number): number | null {
    // Upstream makes no prediction for a fully cached prompt.
    if (uncachedTokens <= 0) return null;
    return prefillTimeMs(uncachedTokens) / this.tpSize;
  }
}

const PREFILL_LOAD_MODELS: { readonly [M in Config['routerPrefillLoadModel']]: (config: Config, env: Env) => PrefillPredictor | null } = {
  none: () => null,
  ais: (config, env) => {
    const model = aisSettings(config, env);
    return new AnalyticPrefillPredictor(model.tp ?? 1);
  },
};

/**
 * The predictor `--router-prefill-load-model` names; throws a ConfigError when its settings are
 * incomplete or inconsistent. `env` is checked for the retired DYN_AIC_* names.
 */
export function prefillPredictor(config: Config, env: Env = process.env): PrefillPredictor | null {
  return PREFILL_LOAD_MODELS[config.routerPrefillLoadModel](config, env);
}

function aisSettings(config: Config, env: Env): AisPerfModel {
  const missing = [
    config.loadAware || config.routerMode === 'kv' ? null : '--router-mode kv',
    config.routerTrackPrefillTokens ? null : '--router-track-prefill-tokens',
    config.dynChatProcessor === 'dynamo' ? null : '--dyn-chat-processor dynamo',
    ...missingAisIdentityFlags(config),
  ].filter((flag) => flag !== null);
  if (missing.length > 0) throw new ConfigError(`--router-prefill-load-model=ais requires ${missing.join(', ')}`);
  const model = aisPerfModel(config, env);
  const { tp = 1, attention_dp: attentionDp, moe_tp_size: moeTp, moe_ep_size: moeEp } = model;
  // Any MoE setting makes it a MoE layout: the attention GPUs must be the expert GPUs.
  if (moeTp === undefined && moeEp === undefined && attentionDp === undefined) return model;
  const attention = tp * (attentionDp ?? 1);
  const experts = (moeTp ?? 1) * (moeEp ?? 1);
  if (attention !== experts) {
    throw new ConfigError(
      `--ais-tp-size × --ais-attention-dp-size (${tp} × ${attentionDp ?? 1} = ${attention}) must equal --ais-moe-tp-size × --ais-moe-ep-size (${moeTp ?? 1} × ${moeEp ?? 1} = ${experts}) for MoE models; for TP-only MoE set --ais-moe-tp-size to --ais-tp-size with --ais-moe-ep-size 1 and --ais-attention-dp-size 1`,
    );
  }
  return model;
}
