// The output parsers a worker may name in its card (`runtime_config.tool_call_parser` and
// `reasoning_parser`, reference/http.md §8), written once: the mocker's flags take these names and
// the frontend's parser registries have one entry per name. Here because both sides check them.

export const TOOL_CALL_PARSER_NAMES = [
  'hermes',
  'llama3_json',
  'mistral',
  'pythonic',
  'qwen3_coder',
  'harmony',
  'deepseek_v3',
  'deepseek_v3_1',
  'deepseek_v3_2',
  'deepseek_v4',
  'deepseek-v4',
  'deepseekv4',
  'kimi_k2',
  'kimi_k3',
  'kimi-k3',
  'glm47',
  'minimax_m2',
  'minimax_m3',
  'minimax-m3',
  'gemma4',
  'gemma-4',
  'jamba',
  'nemotron_deci',
  'nemotron_nano',
  'qwen25',
  'muse_glimmer',
  'phi4',
  'default',
] as const;
export type ToolCallParserName = (typeof TOOL_CALL_PARSER_NAMES)[number];

export const REASONING_PARSER_NAMES = [
  'basic',
  'deepseek_r1',
  'deepseek_v3',
  'deepseek_v3_1',
  'deepseek_v3_2',
  'deepseek_v4',
  'deepseek-v4',
  'deepseekv4',
  'qwen3',
  'gpt_oss',
  'granite',
  'kimi',
  'kimi_k25',
  'kimi_k3',
  'kimi-k3',
  'mistral',
  'nemotron_deci',
  'nemotron_nano',
  'nemotron3',
  'nemotron_v3',
  'glm45',
  'minimax_append_think',
  'minimax_m2',
  'minimax_m3',
  'minimax-m3',
  'gemma4',
  'gemma-4',
  'step3',
] as const;
export type ReasoningParserName = (typeof REASONING_PARSER_NAMES)[number];

/**
 * A deployment's thinking default (`--dyn-default-thinking-mode`), published by workers in the card's
 * `runtime_config.runtime_data.default_thinking_mode`; a request's own thinking control overrides it.
 */
export const THINKING_MODES = ['enabled', 'disabled'] as const;
export type ThinkingMode = (typeof THINKING_MODES)[number];
