// `--router-prefill-load-model` by name: none (static prompt-side load) or aic (each admitted
// request's prefill duration predicted from its uncached prompt length, so a worker's prompt-side
// load drains as its oldest prefill runs; router/kv/prefill-tracker.ts). Upstream asks NVIDIA's
// AIC performance database for the duration; that database is not available here, so `aic` uses
// an analytic predictor: the mocker's own prefill timing model, divided by the tensor-parallel size.
// A database-backed predictor only has to implement `PrefillPredictor`.
import { ConfigError, type Config } from '../config/index.js';
import { prefillTimeMs } from '../engines/mocker/index.js';
import type { PrefillPredictor } from '../router/index.js';

/** The mocker's polynomial for one request alone, spread over `tp` GPUs (compute-bound prefill). */
export class AnalyticPrefillPredictor implements PrefillPredictor {
  constructor(private readonly tpSize: number) {}

  predictMs(uncachedTokens: number): number | null {
    // Upstream makes no prediction for a fully cached prompt.
    if (uncachedTokens <= 0) return null;
    return prefillTimeMs(uncachedTokens) / this.tpSize;
  }
}

const PREFILL_LOAD_MODELS: { readonly [M in Config['routerPrefillLoadModel']]: (config: Config) => PrefillPredictor | null } = {
  none: () => null,
  aic: (config) => {
    assertAicSettings(config);
    return new AnalyticPrefillPredictor(config.aicTpSize);
  },
};

/** The predictor `--router-prefill-load-model` names; throws a ConfigError when its settings are incomplete or inconsistent. */
export function prefillPredictor(config: Config): PrefillPredictor | null {
  return PREFILL_LOAD_MODELS[config.routerPrefillLoadModel](config);
}

function assertAicSettings(config: Config): void {
  const missing = [
    config.loadAware || config.routerMode === 'kv' ? null : '--router-mode kv',
    config.routerTrackPrefillTokens ? null : '--router-track-prefill-tokens',
    config.dynChatProcessor === 'dynamo' ? null : '--dyn-chat-processor dynamo',
    config.aicBackend === undefined ? '--aic-backend' : null,
    config.aicSystem === undefined ? '--aic-system' : null,
    config.aicModelPath === undefined ? '--aic-model-path' : null,
  ].filter((flag) => flag !== null);
  if (missing.length > 0) throw new ConfigError(`--router-prefill-load-model=aic requires ${missing.join(', ')}`);
  const { aicTpSize: tp, aicAttentionDpSize: attentionDp, aicMoeTpSize: moeTp, aicMoeEpSize: moeEp } = config;
  // Any MoE setting makes it a MoE layout: the attention GPUs must be the expert GPUs.
  if (moeTp === undefined && moeEp === undefined && attentionDp === undefined) return;
  const attention = tp * (attentionDp ?? 1);
  const experts = (moeTp ?? 1) * (moeEp ?? 1);
  if (attention !== experts) {
    throw new ConfigError(
      `--aic-tp-size × --aic-attention-dp-size (${tp} × ${attentionDp ?? 1} = ${attention}) must equal --aic-moe-tp-size × --aic-moe-ep-size (${moeTp ?? 1} × ${moeEp ?? 1} = ${experts}) for MoE models; for TP-only MoE set --aic-moe-tp-size to --aic-tp-size with --aic-moe-ep-size 1 and --aic-attention-dp-size 1`,
    );
  }
}
