import type { OptionSpec } from '../option-spec.js';

/** `dynamo-ts worker openai`: OpenAI-compatible servers as workers; every variable is a dynamo-ts addition. */
export const bridgeOptions = [
  {
    key: 'upstream', flag: 'upstream', env: 'DYN_UPSTREAMS', envIsLocal: true, type: 'list', metavar: '<url>',
    group: 'Bridge Workers', scope: 'bridge', built: true, default: [],
    help: 'Base URL of an OpenAI-compatible server (vLLM, SGLang, llama.cpp, Ollama), e.g. http://10.0.0.5:8000; repeatable, each is one instance of the model. `URL@tcp://HOST:PORT` also names its vLLM KV event publisher',
  },
  {
    key: 'upstreamInput', flag: 'upstream-input', env: 'DYN_UPSTREAM_INPUT', envIsLocal: true, type: 'enum',
    choices: { tokens: true, text: true },
    group: 'Bridge Workers', scope: 'bridge', built: true, default: 'tokens',
    help: 'tokens: prompt token ids to /v1/completions, the frontend templates, tokenizes and detokenizes (vLLM, SGLang, llama.cpp); text: chat messages, tools and tool_choice to /v1/chat/completions and prompt text to /v1/completions, the engine applies its own template, stop strings and parsers, and the reasoning, tool calls and logprobs it streams reach the client as it made them (any OpenAI-compatible server)',
  },
  {
    key: 'upstreamModel', flag: 'upstream-model', env: 'DYN_UPSTREAM_MODEL', envIsLocal: true, type: 'string', metavar: '<name>',
    group: 'Bridge Workers', scope: 'bridge', built: true,
    help: 'The model name the upstream servers know (default: the served model name)',
  },
  {
    key: 'kvEventsEndpoint', flag: 'kv-events-endpoint', env: 'DYN_KV_EVENTS_ENDPOINTS', envIsLocal: true, type: 'list', metavar: '<tcp://host:port>',
    group: 'Bridge Workers', scope: 'bridge', built: true, default: [],
    help: "vLLM's ZMQ KV event publisher of an upstream, paired by position with --upstream (repeatable); its events are republished as that instance's, for exact KV routing. Without it, kv routing predicts the cache from its own decisions",
  },
  {
    key: 'upstreamApiKey', flag: 'upstream-api-key', env: 'DYN_UPSTREAM_API_KEY', envIsLocal: true, type: 'string', metavar: '<key>', secret: true,
    group: 'Bridge Workers', scope: 'bridge', built: true,
    help: 'Sent to the upstream servers as `Authorization: Bearer <key>`',
  },
  {
    key: 'upstreamHealthInterval', flag: 'upstream-health-interval', env: 'DYN_UPSTREAM_HEALTH_INTERVAL', envIsLocal: true, type: 'float', min: 0, minExclusive: true,
    metavar: '<seconds>', group: 'Bridge Workers', scope: 'bridge', built: true, default: 5,
    help: 'Seconds between health probes of each upstream (/health, else /v1/models); an upstream failing 3 probes in a row leaves discovery until a probe succeeds',
  },
  {
    key: 'upstreamTimeout', flag: 'upstream-timeout', env: 'DYN_UPSTREAM_TIMEOUT', envIsLocal: true, type: 'float', min: 0, minExclusive: true,
    metavar: '<seconds>', group: 'Bridge Workers', scope: 'bridge', built: true, default: 300,
    help: 'Seconds an upstream may take to start answering a request (its queue and prefill); past it the instance counts as lost and the request may move',
  },
  {
    key: 'upstreamConfig', flag: 'upstream-config', env: 'DYN_UPSTREAM_CONFIG', envIsLocal: true, type: 'path', mustExist: true,
    group: 'Bridge Workers', scope: 'frontend', built: true,
    help: 'YAML or JSON file mapping model names to OpenAI-compatible servers (a URL, or a map with url, input, kv_events, api_key, model); the frontend bridges them itself, re-reading the file when it changes (see docs/bridge.md)',
  },
] as const satisfies readonly OptionSpec[];
