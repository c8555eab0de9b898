import { REASONING_PARSER_NAMES, STRUCTURAL_TAG_SCHEMAS, STRUCTURAL_TAG_SCOPES, THINKING_MODES, TOOL_CALL_PARSER_NAMES } from '../../protocols/index.js';
import { allBuilt, type OptionSpec } from '../option-spec.js';

/** Upstream's mocker has no env vars; every DYN_MOCKER_* variable is a dynamo-ts addition (envIsLocal). */
export const mockerOptions = [
  {
    key: 'endpoint', flag: 'endpoint', env: 'DYN_MOCKER_ENDPOINT', envIsLocal: true, type: 'string',
    pattern: { regex: /^dyn:\/\/[^.\s]+\.[^.\s]+\.[^.\s]+$/, describe: 'of the form dyn://namespace.component.endpoint' },
    metavar: '<dyn://ns.component.endpoint>', group: 'Mocker Engine', scope: 'worker', built: true,
    help: 'Endpoint the engine registers (default: dyn://<namespace or dynamo>.backend.generate)',
  },
  {
    key: 'numGpuBlocksOverride', flag: 'num-gpu-blocks-override', env: 'DYN_MOCKER_NUM_GPU_BLOCKS_OVERRIDE', envIsLocal: true,
    type: 'int', min: 1, group: 'Mocker Engine', scope: 'mocker', built: true, default: 16384,
    help: 'Number of KV cache blocks of each simulated engine',
  },
  {
    key: 'blockSize', flag: 'block-size', env: 'DYN_MOCKER_BLOCK_SIZE', envIsLocal: true,
    type: 'int', min: 1, group: 'Mocker Engine', scope: 'mocker', built: true,
    help: 'Tokens per KV cache block (default: the engine type\'s, vllm 64, sglang 1, trtllm 32)',
  },
  {
    key: 'maxNumSeqs', flag: 'max-num-seqs', env: 'DYN_MOCKER_MAX_NUM_SEQS', envIsLocal: true,
    type: 'int', min: 1, group: 'Mocker Engine', scope: 'mocker', built: true, default: 256,
    help: 'Maximum sequences scheduled per iteration',
  },
  {
    key: 'maxNumBatchedTokens', flag: 'max-num-batched-tokens', env: 'DYN_MOCKER_MAX_NUM_BATCHED_TOKENS', envIsLocal: true,
    type: 'int', min: 1, group: 'Mocker Engine', scope: 'mocker', built: true, default: 8192,
    help: 'Maximum tokens batched per iteration',
  },
  {
    key: 'enablePrefixCaching', flag: 'enable-prefix-caching', env: 'DYN_MOCKER_ENABLE_PREFIX_CACHING', envIsLocal: true,
    type: 'bool', group: 'Mocker Engine', scope: 'mocker', built: true, default: true,
    help: 'Reuse cached prefix blocks (and publish KV events)',
  },
  {
    key: 'enableChunkedPrefill', flag: 'enable-chunked-prefill', env: 'DYN_MOCKER_ENABLE_CHUNKED_PREFILL', envIsLocal: true,
    type: 'bool', group: 'Mocker Engine', scope: 'mocker', built: true, default: true,
    help: 'Split long prompts across iterations',
  },
  {
    key: 'watermark', flag: 'watermark', env: 'DYN_MOCKER_WATERMARK', envIsLocal: true,
    type: 'float', min: 0, max: 1, group: 'Mocker Engine', scope: 'mocker', built: true, default: 0.01,
    help: 'Fraction of KV blocks kept free when admitting requests',
  },
  {
    key: 'speedupRatio', flag: 'speedup-ratio', env: 'DYN_MOCKER_SPEEDUP_RATIO', envIsLocal: true,
    type: 'float', min: 0, minExclusive: true, group: 'Mocker Engine', scope: 'mocker', built: true, default: 1,
    help: 'Run the simulated timing this many times faster',
  },
  {
    key: 'decodeSpeedupRatio', flag: 'decode-speedup-ratio', env: 'DYN_MOCKER_DECODE_SPEEDUP_RATIO', envIsLocal: true,
    type: 'float', min: 0, minExclusive: true, group: 'Mocker Engine', scope: 'mocker', built: true, default: 1,
    help: 'Extra speedup of decode steps only (e.g. to model speculative decoding)',
  },
  {
    key: 'dataParallelSize', flag: 'data-parallel-size', env: 'DYN_MOCKER_DATA_PARALLEL_SIZE', envIsLocal: true,
    type: 'int', min: 1, group: 'Mocker Engine', scope: 'mocker', built: true, default: 1,
    help: 'Data-parallel ranks per engine: each rank is an engine core of its own that publishes its own KV events and load; a request goes to the rank its dp_rank names (round-robin when unset)',
  },
  {
    key: 'numWorkers', flag: 'num-workers', env: 'DYN_MOCKER_NUM_WORKERS', envIsLocal: true,
    type: 'int', min: 1, group: 'Mocker Engine', scope: 'mocker', built: true, default: 1,
    help: 'Number of independent engines (workers) run in this process',
  },
  {
    key: 'startupTime', flag: 'startup-time', env: 'DYN_MOCKER_STARTUP_TIME', envIsLocal: true,
    type: 'float', min: 0, metavar: '<seconds>', group: 'Mocker Engine', scope: 'mocker', built: true,
    help: 'Simulated engine startup delay in seconds (none when unset)',
  },
  {
    key: 'disaggregationMode', flag: 'disaggregation-mode', env: 'DYN_MOCKER_DISAGGREGATION_MODE', envIsLocal: true, type: 'enum',
    choices: { agg: true, prefill: true, decode: true },
    group: 'Mocker Engine', scope: 'mocker', built: true,
    help: 'Role in disaggregated serving: agg (aggregated, the default), prefill (answers one token and hands its KV over; registers dyn://<namespace>.prefill.generate, worker_type prefill) or decode (takes handed-over prompts without prefill time; worker_type decode, no KV events)',
  },
  {
    key: 'workerType', flag: 'worker-type', env: 'DYN_MOCKER_WORKER_TYPE', envIsLocal: true, type: 'enum',
    choices: { aggregated: true, prefill: true, decode: true },
    group: 'Mocker Engine', scope: 'mocker', built: true,
    help: 'Alias of --disaggregation-mode (aggregated = agg); both given, they must agree',
  },
  {
    key: 'modelType', flag: 'model-type', env: 'DYN_MOCKER_MODEL_TYPE', envIsLocal: true, type: 'enum',
    choices: { chat: true, embedding: true, images: true, videos: true },
    group: 'Mocker Engine', scope: 'mocker', built: true, default: 'chat',
    help: 'What the simulated model is, as its card says: chat (a Chat | Completions LLM), embedding (unit-norm vectors from the tokens), images (small PNGs) or videos (a short frame stream)',
  },
  {
    key: 'engineType', flag: 'engine-type', env: 'DYN_MOCKER_ENGINE_TYPE', envIsLocal: true, type: 'enum',
    choices: { vllm: true, sglang: true, trtllm: true },
    group: 'Mocker Engine', scope: 'mocker', built: true, default: 'vllm',
    help: 'Which engine scheduler is simulated: vllm (block size 64; prefill and decode share each step\'s token budget, chunked prefill, running requests preempted last-in first-out), sglang (page size 1; at most 16384 prompt tokens per step in chunks of 8192, decode requests retracted under memory pressure) or trtllm (block size 32; guaranteed_no_evict: admission reserves blocks for the prompt and the whole answer, so nothing is preempted). All publish the same KV events',
  },
  {
    key: 'dynToolCallParser', flag: 'dyn-tool-call-parser', env: 'DYN_TOOL_CALL_PARSER', envIsLocal: true,
    type: 'enum', choices: allBuilt(TOOL_CALL_PARSER_NAMES), metavar: '<name>', group: 'Mocker Engine', scope: 'worker', built: true,
    help: `Tool-call parser the frontend applies to this model's output, published in the card's runtime_config.tool_call_parser (${TOOL_CALL_PARSER_NAMES.join(', ')}; none when unset)`,
  },
  {
    key: 'dynReasoningParser', flag: 'dyn-reasoning-parser', env: 'DYN_REASONING_PARSER', envIsLocal: true,
    type: 'enum', choices: allBuilt(REASONING_PARSER_NAMES), metavar: '<name>', group: 'Mocker Engine', scope: 'worker', built: true,
    help: `Reasoning parser the frontend applies to this model's output, published in the card's runtime_config.reasoning_parser (${REASONING_PARSER_NAMES.join(', ')}; none when unset)`,
  },
  {
    key: 'dynDefaultThinkingMode', flag: 'dyn-default-thinking-mode', env: 'DYN_DEFAULT_THINKING_MODE', envIsLocal: true,
    type: 'enum', choices: allBuilt(THINKING_MODES), metavar: '<mode>', group: 'Mocker Engine', scope: 'worker', built: true,
    help: `The deployment's thinking default (${THINKING_MODES.join(' or ')}), published in the card's runtime_config.runtime_data.default_thinking_mode: the frontend states it to the chat template (thinking, enable_thinking, thinking_mode) and starts the reasoning parser accordingly, unless a request sets its own thinking control; the template's own default when unset`,
  },
  {
    key: 'dynStructuralTag', flag: 'dyn-structural-tag', env: 'DYN_STRUCTURAL_TAG', type: 'string', bareValue: 'true',
    // The object's fields are checked when the worker starts (launch/structural-tag-flags.ts).
    pattern: { regex: /^(?:true|false|1|0|yes|no|on|off|\s*\{[\s\S]*\}\s*)$/i, describe: 'true, false or a JSON object' },
    metavar: '[<bool|JSON>]', group: 'Mocker Engine', scope: 'worker', built: true,
    help: "Structural-tag guided decoding of tool calls, published in the card's runtime_config (structural_tag_mode, structural_tag_scope, structural_tag_schema, structural_tag): the frontend then sends each eligible request a grammar of the tool-call parser's own format (a parser without one falls back to plain parsing). true (also the flag alone), false, or a JSON object of upstream's fields, each optional: scope auto|always (default always), schema auto|strict (default auto), allow_tool_calls_with_structured_output, exclude_special_tokens, reasoning_boundary auto|structural_tag|backend, tool_arguments_any_order; unknown fields are refused. Unset: on for `worker openai` (as upstream's engine workers), off for the mocker (as upstream's native mocker, whose output follows no grammar)",
  },
  {
    key: 'dynEnableStructuralTag', flag: 'dyn-enable-structural-tag', env: 'DYN_ENABLE_STRUCTURAL_TAG', type: 'bool',
    group: 'Mocker Engine', scope: 'worker', built: true,
    help: 'Older spelling of --dyn-structural-tag true / false (a deprecation warning is logged); not with --dyn-structural-tag',
  },
  {
    key: 'dynStructuralTagScope', flag: 'dyn-structural-tag-scope', env: 'DYN_STRUCTURAL_TAG_SCOPE', type: 'enum',
    choices: allBuilt(STRUCTURAL_TAG_SCOPES), group: 'Mocker Engine', scope: 'worker', built: true,
    help: 'Older spelling of --dyn-structural-tag \'{"scope": …}\' (a deprecation warning is logged): auto builds a tag for required and named tool choices, and for auto when a tool is strict or parallel_tool_calls is false; always for every tool choice but none',
  },
  {
    key: 'dynStructuralTagSchema', flag: 'dyn-structural-tag-schema', env: 'DYN_STRUCTURAL_TAG_SCHEMA', type: 'enum',
    choices: allBuilt(STRUCTURAL_TAG_SCHEMAS), group: 'Mocker Engine', scope: 'worker', built: true,
    help: 'Older spelling of --dyn-structural-tag \'{"schema": …}\' (a deprecation warning is logged): auto enforces a tool\'s parameters schema unless the tool says strict: false; strict enforces every tool\'s',
  },
  {
    key: 'mockerOutput', flag: 'mocker-output', env: 'DYN_MOCKER_OUTPUT', envIsLocal: true, type: 'enum',
    choices: { random: true, text: true, 'echo-last-user': true, script: true },
    group: 'Mocker Engine', scope: 'mocker', built: true, default: 'random',
    help: 'What the engine answers, for end-to-end tests: random (seeded text of random length), text (--mocker-output-text, then EOS), echo-last-user (the text of the prompt\'s last user turn, then EOS) or script (--mocker-script: replies chosen by the conversation\'s turn, e.g. a tool call in the model\'s own format and then a final answer, to drive agent tool loops); max_tokens and stop conditions still apply',
  },
  {
    key: 'mockerScript', flag: 'mocker-script', env: 'DYN_MOCKER_SCRIPT', envIsLocal: true, type: 'path', mustExist: true,
    metavar: '<file>', group: 'Mocker Engine', scope: 'mocker', built: true,
    help: 'A YAML or JSON file of scripted replies (implies --mocker-output script): `replies:` a list of {text, turn?, contains?}; a request gets the first reply whose `turn` equals the number of assistant turns already in its prompt and whose `contains` is in its last user turn (docs/mocker-script.md)',
  },
  {
    key: 'mockerOutputText', flag: 'mocker-output-text', env: 'DYN_MOCKER_OUTPUT_TEXT', envIsLocal: true, type: 'string',
    metavar: '<text>', group: 'Mocker Engine', scope: 'mocker', built: true,
    help: 'The answer of every request, tokenized with the model\'s tokenizer (implies --mocker-output text)',
  },
  {
    key: 'plannerProfileData', flag: 'planner-profile-data', env: 'DYN_MOCKER_PLANNER_PROFILE_DATA', envIsLocal: true,
    type: 'path', mustExist: true, group: 'Mocker Engine', scope: 'mocker', built: true,
    help: 'Planner profile whose interpolated TTFT (over prompt length) and ITL (over active KV tokens × context length) replace the polynomial timing: an .npz with prefill_isl, prefill_ttft_ms, decode_active_kv_tokens, decode_context_length, decode_itl, or a profiler directory (selected_{prefill,decode}_interpolation/raw_data.npz or {prefill,decode}_raw_data.json)',
  },
  {
    key: 'extraEngineArgs', flag: 'extra-engine-args', env: 'DYN_MOCKER_EXTRA_ENGINE_ARGS', envIsLocal: true,
    type: 'path', mustExist: true, group: 'Mocker Engine', scope: 'mocker', built: true,
    help: "JSON object of upstream's MockEngineArgs fields (num_gpu_blocks, block_size, max_num_seqs, max_num_batched_tokens, enable_prefix_caching, enable_chunked_prefill, watermark, speedup_ratio, decode_speedup_ratio, dp_size, startup_time, worker_type, engine_type, planner_profile_data, legacy is_prefill/is_decode) that replaces every engine flag: unset fields take their defaults",
  },
] as const satisfies readonly OptionSpec[];
