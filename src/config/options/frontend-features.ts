import type { OptionSpec } from '../option-spec.js';

export const frontendFeatureOptions = [
  {
    key: 'metricsPrefix', flag: 'metrics-prefix', env: 'DYN_METRICS_PREFIX', type: 'string',
    pattern: { regex: /^[a-zA-Z_:][a-zA-Z0-9_:]*$/, describe: 'a Prometheus metric name prefix ([a-zA-Z_:][a-zA-Z0-9_:]*)' },
    metavar: '<prefix>', group: 'Monitoring & Logging', scope: 'frontend', built: true, default: 'dynamo_frontend',
    help: 'Prefix of the frontend Prometheus metrics',
  },
  {
    key: 'dashboard', flag: 'dashboard', env: 'DYN_HTTP_DASHBOARD', envIsLocal: true, type: 'bool',
    group: 'Monitoring & Logging', scope: 'frontend', built: true, default: true,
    help: 'Serve the live dashboard at /dashboard (models, workers, request rate, TTFT, ITL, KV cache), guarded by the API keys when set; --no-dashboard turns it off (404)',
  },
  {
    key: 'dumpConfigTo', flag: 'dump-config-to', env: 'DYN_DUMP_CONFIG_TO', type: 'path',
    group: 'Monitoring & Logging', scope: 'both', built: true,
    help: 'Write the resolved configuration as JSON to this file at startup',
  },
  {
    key: 'log', env: 'DYN_LOG', type: 'string', metavar: '<level>',
    group: 'Monitoring & Logging', scope: 'both', built: true, default: 'info',
    help: 'Log level, then optional module=level pairs (e.g. debug, or info,router=debug; the dynamo_ts:: prefix is accepted). Modules: http, grpc, router, discovery, runtime, mocker, bridge',
  },
  {
    key: 'loggingJsonl', env: 'DYN_LOGGING_JSONL', type: 'bool',
    group: 'Monitoring & Logging', scope: 'both', built: true, default: false,
    help: 'Log format on stderr: true forces JSON lines, false forces readable lines; unset, readable when stdout is a terminal and JSON otherwise',
  },
  {
    key: 'otelExportEnabled', env: 'OTEL_EXPORT_ENABLED', type: 'bool',
    group: 'Monitoring & Logging', scope: 'both', built: true, default: false,
    help: 'Export OpenTelemetry traces over OTLP/HTTP (the standard OTEL_EXPORTER_OTLP_* and OTEL_TRACES_SAMPLER variables apply); off: no tracing work at all',
  },
  {
    key: 'otelServiceName', env: 'OTEL_SERVICE_NAME', type: 'string', metavar: '<name>',
    group: 'Monitoring & Logging', scope: 'both', built: true,
    help: "The traces' service.name; unset: dynamo-ts-frontend, dynamo-ts-mocker or dynamo-ts (serve)",
  },
  {
    key: 'otelExporterOtlpTracesEndpoint', env: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', type: 'string', metavar: '<url>',
    group: 'Monitoring & Logging', scope: 'both', built: true,
    help: 'Where traces are POSTed (OTLP/HTTP JSON); unset: OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces, else http://localhost:4318/v1/traces',
  },
  {
    key: 'tokenizer', flag: 'tokenizer', env: 'DYN_TOKENIZER', type: 'enum',
    choices: { default: true, fastokens: true, basetenkenizer: true },
    group: 'Tokenizer', scope: 'frontend', built: true, default: 'default',
    help: "Tokenizer backend. default: byte-level BPE tokenizers (GPT-2, Llama 3, Qwen and alike) encode prompts of up to 8192 characters with a JavaScript BPE encoder that gives the native ids, synchronously (10-20x less CPU than the native call; its first 8 prompts are checked against native, and a difference turns it off with a warning); longer prompts, prompts with too many pieces it has not cached, special tokens a post-processor adds (Llama 3's BOS on completions), and tokenizer.json shapes it does not reproduce (e.g. SentencePiece/Metaspace) go to Hugging Face 'tokenizers' (native, on the libuv pool, short prompts batched per event-loop turn). fastokens and basetenkenizer: the same plus the prompt prefix cache always on, whatever DYN_TOKENIZER_CACHE says (neither Rust library has a Node binding; this is the fastest path measured here, with the same ids), falling back to default as --tokenizer-fallback says",
  },
  {
    key: 'tokenizerFallback', flag: 'tokenizer-fallback', env: 'DYN_TOKENIZER_FALLBACK', type: 'bool',
    group: 'Tokenizer', scope: 'frontend', built: true, default: true,
    help: "When the chosen backend cannot load the model's tokenizer (fastokens: tokenizer.json has no special token to cut prompts at), warn and use the default backend; --no-tokenizer-fallback makes it a startup error",
  },
  {
    key: 'tokenizerCache', env: 'DYN_TOKENIZER_CACHE', type: 'bool',
    group: 'Tokenizer', scope: 'frontend', built: true, default: true,
    help: "Prompt prefix cache (upstream's L1 tokenizer cache, on by default): the token ids of a chat prompt's leading part (cut where a special token starts) are reused when a later prompt starts the same way, e.g. a repeated system prompt and tools, or the earlier turns of a conversation; prompts under 1024 characters pass by it",
  },
  {
    key: 'mallocTuning', env: 'DYN_MALLOC_TUNING', type: 'bool',
    group: 'HTTP & Networking', scope: 'frontend', built: true, default: true,
    help: "glibc malloc settings for the frontend pool's processes (MALLOC_ARENA_MAX=2, MALLOC_MMAP_THRESHOLD_=131072, MALLOC_TRIM_THRESHOLD_=131072, each unless already in the environment), so memory taken by huge requests goes back to the system; `npm start` and the container image set them for every process. Off leaves malloc as the environment says",
  },
  {
    key: 'tokenizerCacheMb', env: 'DYN_TOKENIZER_CACHE_MB', type: 'int', min: 1,
    group: 'Tokenizer', scope: 'frontend', built: true, default: 64,
    help: "Size of the prompt prefix cache in MiB, per model: one arena for prompts' texts and ids, taken at the first prompt it stores (the oldest prompts leave first, prompts in use stay; upstream's budget is 64 MiB)",
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
    choices: { dynamo: true, vllm: true, sglang: true },
    group: 'Experimental', scope: 'frontend', built: true, default: 'dynamo',
    help: "Chat pre/post-processing: dynamo (built in) or the engine's own (vllm, sglang): every chat's messages and tools go to the workers beside the tokens, and bridged engines of --upstream-config take text (the engine applies its own template, tokenizer and parsers; the frontend keeps routing, metrics and the APIs)",
  },
  {
    key: 'dynDebugPerf', flag: 'dyn-debug-perf', env: 'DYN_DEBUG_PERF', type: 'bool',
    group: 'Experimental', scope: 'frontend', built: true, default: false,
    help: 'Log each request\'s preprocessing timings at info (module http): chat template, tokenize (with the prefix-cache hit), routing and time to first token',
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
