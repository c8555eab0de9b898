// The model a worker process serves, from its flags: the card of `--model-path` (or the bundled
// Qwen3 tokenizer) and the endpoint of `--endpoint`.
import type { Config } from '../config/index.js';
import { loadDefaultModelCard, loadModelCard, type EndpointId, type ModelDeploymentCard } from '../models/index.js';
import type { ThinkingMode } from '../protocols/index.js';
import { publishedStructuralTag } from './structural-tag-flags.js';

export type { EndpointId };

/** The card of the model this process serves: `--model-path`, or the bundled Qwen3 tokenizer. */
export function loadConfiguredCard(config: Config, blockSize: number): ModelDeploymentCard {
  const opts = { displayName: config.modelName, kvCacheBlockSize: blockSize, migrationLimit: config.migrationLimit };
  return config.modelPath ? loadModelCard(config.modelPath, opts) : loadDefaultModelCard(opts);
}

/** `dyn://ns.component.endpoint` → its parts. */
export function parseEndpoint(url: string): EndpointId {
  const [namespace, component, endpoint] = url.replace(/^dyn:\/\//, '').split('.');
  return { namespace: namespace!, component: component!, endpoint: endpoint! };
}

/** What a worker publishes of `--dyn-default-thinking-mode` in its card's runtime config (upstream's place). */
function thinkingDefault(config: Pick<Config, 'dynDefaultThinkingMode'>): { runtime_data?: { default_thinking_mode: ThinkingMode } } {
  const mode = config.dynDefaultThinkingMode;
  return mode ? { runtime_data: { default_thinking_mode: mode } } : {};
}

/**
 * What a worker publishes in its card's runtime config of how its output is parsed: the parser
 * names, the thinking default and the structural-tag settings (`structuralTagByDefault`: whether
 * no structural-tag flag means on). `warn` hears each deprecated flag used.
 */
export function workerParsers(config: Config, structuralTagByDefault: boolean, warn: (message: string) => void): Record<string, unknown> {
  const structuralTag = publishedStructuralTag(config, structuralTagByDefault);
  for (const warning of structuralTag.warnings) warn(warning);
  return {
    tool_call_parser: config.dynToolCallParser ?? null,
    reasoning_parser: config.dynReasoningParser ?? null,
    ...thinkingDefault(config),
    ...structuralTag.runtimeConfig,
  };
}
