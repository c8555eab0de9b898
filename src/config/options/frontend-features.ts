import type { OptionSpec } from '../option-spec.js';

export const frontendFeatureOptions = [
  {
    key: 'metricsPrefix', flag: 'metrics-prefix', env: 'DYN_METRICS_PREFIX', type: 'string',
    pattern: { regex: /^[a-zA-Z_:][a-zA-Z0-9_:]*$/, describe: 'a Prometheus metric name prefix ([a-zA-Z_:][a-zA-Z0-9_:]*)' },
    metavar: '<prefix>', group: 'Monitoring & Logging', scope: 'frontend', built: true, default: 'dynamo_frontend',
    help: 'Prefix of the frontend Prometheus metrics',
  },
  {
    key: 'dumpConfigTo', flag: 'dump-config-to', env: 'DYN_DUMP_CONFIG_TO', type: 'path',
    group: 'Monitoring & Logging', scope: 'both', built: true,
    help: 'Write the resolved configuration as JSON to this file at startup',
  },
  {
    key: 'log', env: 'DYN_LOG', type: 'string', metavar: '<level>',
    group: 'Monitoring & Logging', scope: 'both', built: true, default: 'info',
    help: 'Log level, then optional module=level pairs (e.g. debug, or info,router=debug; the dynamo_ts:: prefix is accepted). Modules: http, grpc, router, discovery, runtime, mocker',
  },
  {
    key: 'loggingJsonl', env: 'DYN_LOGGING_JSONL', type: 'bool',
    group: 'Monitoring & Logging', scope: 'both', built: true, default: false,
    help: 'Log format on stderr: true forces JSON lines, false forces readable lines; unset, readable when stdout is a terminal and JSON otherwise',
  },
  {
    key: 'tokenizer', flag: 'tokenizer', env: 'DYN_TOKENIZER', type: 'enum',
    choices: { default: true, fastokens: false, basetenkenizer: false },
    group: 'Tokenizer', scope: 'frontend', built: true, default: 'default',
    help: "Tokenizer backend: default (Hugging Face 'tokenizers'), fastokens or basetenkenizer",
  },
  {
    key: 'tokenizerFallback', flag: 'tokenizer-fallback', env: 'DYN_TOKENIZER_FALLBACK', type: 'bool',
    group: 'Tokenizer', scope: 'frontend', built: false, default: true,
    help: 'Fall back to the default tokenizer when the chosen backend fails',
  },
  {
    key: 'trustRemoteCode', flag: 'trust-remote-code', env: 'DYN_TRUST_REMOTE_CODE', type: 'bool',
    group: 'Tokenizer', scope: 'frontend', built: true, default: false,
    help: 'Accepted for compatibility and has no effect: tokenizers here read tokenizer.json as data and never run model code',
  },
  {
    key: 'enableAnthropicApi', flag: 'enable-anthropic-api', env: 'DYN_ENABLE_ANTHROPIC_API', type: 'bool',
    group: 'Experimental', scope: 'frontend', built: true, default: false,
    help: 'Serve /v1/messages and /v1/messages/count_tokens (Anthropic Messages API)',
  },
  {
    key: 'stripAnthropicPreamble', flag: 'strip-anthropic-preamble', env: 'DYN_STRIP_ANTHROPIC_PREAMBLE', type: 'bool',
    group: 'Experimental', scope: 'frontend', built: true, default: false,
    help: "Remove Claude Code's billing header block (x-anthropic-billing-header: ...) from the system prompt, so it does not defeat prefix caching",
  },
  {
    key: 'enableStreamingToolDispatch', flag: 'enable-streaming-tool-dispatch', env: 'DYN_ENABLE_STREAMING_TOOL_DISPATCH', type: 'bool',
    group: 'Experimental', scope: 'frontend', built: true, default: false,
    help: 'Emit an `event: tool_call_dispatch` SSE event per completed tool call',
  },
  {
    key: 'enableStreamingReasoningDispatch', flag: 'enable-streaming-reasoning-dispatch', env: 'DYN_ENABLE_STREAMING_REASONING_DISPATCH', type: 'bool',
    group: 'Experimental', scope: 'frontend', built: true, default: false,
    help: 'Emit an `event: reasoning_dispatch` SSE event with the whole reasoning block when reasoning ends',
  },
  {
    key: 'reasoningFieldName', flag: 'reasoning-field-name', env: 'DYN_REASONING_FIELD_NAME', type: 'enum',
    choices: { reasoning_content: true, reasoning: true },
    group: 'Experimental', scope: 'frontend', built: true, default: 'reasoning_content',
    help: 'Name of the reasoning field in chat deltas and messages',
  },
  {
    key: 'excludeToolsWhenToolChoiceNone', flag: 'exclude-tools-when-tool-choice-none', env: 'DYN_EXCLUDE_TOOLS_WHEN_TOOL_CHOICE_NONE', type: 'bool',
    group: 'Experimental', scope: 'frontend', built: true, default: true,
    help: 'Leave tools out of the chat template when tool_choice is none',
  },
  {
    key: 'dynChatProcessor', flag: 'dyn-chat-processor', env: 'DYN_CHAT_PROCESSOR', type: 'enum',
    choices: { dynamo: true, vllm: false, sglang: false },
    group: 'Experimental', scope: 'frontend', built: true, default: 'dynamo',
    help: 'Chat pre/post-processing: dynamo (built in), vllm or sglang',
  },
  {
    key: 'dynDebugPerf', flag: 'dyn-debug-perf', env: 'DYN_DEBUG_PERF', type: 'bool',
    group: 'Experimental', scope: 'frontend', built: false, default: false,
    help: 'Log per-function preprocessing timings (vllm/sglang processors)',
  },
  {
    key: 'dynPreprocessWorkers', flag: 'dyn-preprocess-workers', env: 'DYN_PREPROCESS_WORKERS', type: 'int', min: 0,
    group: 'Experimental', scope: 'frontend', built: true, default: 0,
    help: 'Worker threads that render the chat template and tokenize prompts of at least DYN_PREPROCESS_MIN_CHARS characters, off the event loop; 0 keeps all preprocessing on the main thread (long templates still render on one shared thread)',
  },
  {
    key: 'preprocessMinChars', env: 'DYN_PREPROCESS_MIN_CHARS', envIsLocal: true, type: 'int', min: 0,
    group: 'Experimental', scope: 'frontend', built: true, default: 16384,
    help: 'With --dyn-preprocess-workers: prompts of at least this many characters are preprocessed on a worker thread; shorter ones stay on the event loop, where the hop would cost more than the work',
  },
  {
    key: 'interactive', flag: 'interactive', short: 'i', env: 'DYN_INTERACTIVE', type: 'bool',
    group: 'Experimental', scope: 'frontend', built: true, default: false,
    help: 'Interactive text chat in the terminal instead of the HTTP server (/exit or Ctrl-D ends it)',
  },
  {
    key: 'frontendRouteExtension', flag: 'frontend-route-extension', env: 'DYN_FRONTEND_ROUTE_EXTENSIONS', type: 'list',
    metavar: '<module:function>', group: 'Experimental', scope: 'frontend', built: true, default: [],
    help: 'Extra HTTP routes: an ES module (path or package) whose exported function registers routes on the server (repeatable; not with -i or the KServe gRPC server)',
  },
] as const satisfies readonly OptionSpec[];
