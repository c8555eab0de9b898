import type { OptionSpec } from '../option-spec.js';

const LENGTH = {
  regex: /^(\d+|fixed:\d+|uniform:\d+,\d+|normal:\d+(\.\d+)?,\d+(\.\d+)?)$/,
  describe: 'a token count N, fixed:N, uniform:MIN,MAX or normal:MEAN,STDDEV',
};
const POSITIVE_LIST = { regex: /^\d+(\.\d+)?(,\d+(\.\d+)?)*$/, describe: 'a comma-separated list of positive numbers' };

/** `dynamo-ts bench`, the load generator: a client, so every option is its own (DYN_BENCH_*, dynamo-ts only). */
export const benchOptions = [
  {
    key: 'url', flag: 'url', env: 'DYN_BENCH_URL', envIsLocal: true, type: 'string', group: 'Benchmark', scope: 'bench', built: true,
    default: 'http://127.0.0.1:8000', metavar: '<url>',
    pattern: { regex: /^(https?:\/\/|grpc:\/\/)?[^\s/]+(:\d+)?\/?$/, describe: 'http(s)://host:port, grpc://host:port or host:port' },
    help: 'Server to load: the HTTP base URL for chat/completions, the gRPC address (grpc://host:port or host:port) for kserve',
  },
  {
    key: 'model', flag: 'model', env: 'DYN_BENCH_MODEL', envIsLocal: true, type: 'string', group: 'Benchmark', scope: 'bench', built: true,
    help: 'Model to request (default: the first model of GET /v1/models; required with --api kserve)',
  },
  {
    key: 'api', flag: 'api', env: 'DYN_BENCH_API', envIsLocal: true, type: 'enum', group: 'Benchmark', scope: 'bench', built: true,
    choices: { chat: true, completions: true, kserve: true }, default: 'chat',
    help: 'Request kind: OpenAI /v1/chat/completions, /v1/completions, or KServe gRPC (ModelStreamInfer when streaming, else ModelInfer)',
  },
  {
    key: 'stream', flag: 'stream', env: 'DYN_BENCH_STREAM', envIsLocal: true, type: 'bool', group: 'Benchmark', scope: 'bench', built: true,
    default: true, help: 'Stream the answers (TTFT and inter-token latency are only measured when streaming)',
  },
  {
    key: 'concurrency', flag: 'concurrency', env: 'DYN_BENCH_CONCURRENCY', envIsLocal: true, type: 'string', group: 'Benchmark', scope: 'bench', built: true,
    metavar: '<n[,n...]>', pattern: { regex: /^[1-9]\d*(,[1-9]\d*)*$/, describe: 'a comma-separated list of positive integers' },
    help: 'Requests kept in flight (default 1); a list (1,8,32) runs a sweep, one run per value. With --request-rate or --trace: one value, the cap on requests in flight (default none)',
  },
  {
    key: 'requestRate', flag: 'request-rate', env: 'DYN_BENCH_REQUEST_RATE', envIsLocal: true, type: 'string', group: 'Benchmark', scope: 'bench', built: true,
    metavar: '<req/s[,req/s...]>', pattern: POSITIVE_LIST,
    help: 'Send requests as a Poisson process at this mean rate instead of at fixed concurrency; a list runs a sweep',
  },
  {
    key: 'requests', flag: 'requests', env: 'DYN_BENCH_REQUESTS', envIsLocal: true, type: 'int', min: 1, group: 'Benchmark', scope: 'bench', built: true,
    help: 'Requests per run (default 100 unless --duration is given; with a trace: its lines, replayed once)',
  },
  {
    key: 'duration', flag: 'duration', env: 'DYN_BENCH_DURATION', envIsLocal: true, type: 'float', min: 0, minExclusive: true, group: 'Benchmark', scope: 'bench', built: true,
    metavar: '<seconds>', help: 'Seconds per run during which new requests start; those in flight then finish. With --requests, whichever ends first',
  },
  {
    key: 'inputTokens', flag: 'input-tokens', env: 'DYN_BENCH_INPUT_TOKENS', envIsLocal: true, type: 'string', group: 'Benchmark', scope: 'bench', built: true,
    default: '128', pattern: LENGTH, metavar: '<dist>', help: 'Synthetic prompt length in tokens per turn: N, fixed:N, uniform:MIN,MAX or normal:MEAN,STDDEV',
  },
  {
    key: 'outputTokens', flag: 'output-tokens', env: 'DYN_BENCH_OUTPUT_TOKENS', envIsLocal: true, type: 'string', group: 'Benchmark', scope: 'bench', built: true,
    default: '64', pattern: LENGTH, metavar: '<dist>', help: 'max_tokens per request, same forms as --input-tokens',
  },
  {
    key: 'sharedPrefixRatio', flag: 'shared-prefix-ratio', env: 'DYN_BENCH_SHARED_PREFIX_RATIO', envIsLocal: true, type: 'float', min: 0, max: 1,
    group: 'Benchmark', scope: 'bench', built: true, default: 0,
    help: 'Share of each synthetic prompt that is one prefix common to all requests (a system prompt the KV cache can reuse)',
  },
  {
    key: 'sessionTurns', flag: 'session-turns', env: 'DYN_BENCH_SESSION_TURNS', envIsLocal: true, type: 'int', min: 1, group: 'Benchmark', scope: 'bench', built: true,
    default: 1, help: 'Turns per synthetic session: each turn resends the history (earlier prompts and answers) plus a new prompt',
  },
  {
    key: 'trace', flag: 'trace', env: 'DYN_BENCH_TRACE', envIsLocal: true, type: 'path', mustExist: true, group: 'Benchmark', scope: 'bench', built: true,
    help: 'Replay a Mooncake-format JSONL trace (timestamp ms, input_length, output_length, hash_ids) at its timestamps instead of synthetic load (not with --request-rate)',
  },
  {
    key: 'traceBlockSize', flag: 'trace-block-size', env: 'DYN_BENCH_TRACE_BLOCK_SIZE', envIsLocal: true, type: 'int', min: 1, group: 'Benchmark', scope: 'bench', built: true,
    default: 512, help: "Tokens per trace hash id: equal hash ids become equal text blocks, so the trace's shared prefixes are shared prompt text",
  },
  {
    key: 'traceSpeedup', flag: 'trace-speedup', env: 'DYN_BENCH_TRACE_SPEEDUP', envIsLocal: true, type: 'float', min: 0, minExclusive: true,
    group: 'Benchmark', scope: 'bench', built: true, default: 1, help: 'Divide the trace timestamps by this factor (2 replays twice as fast)',
  },
  {
    key: 'ignoreEos', flag: 'ignore-eos', env: 'DYN_BENCH_IGNORE_EOS', envIsLocal: true, type: 'bool', group: 'Benchmark', scope: 'bench', built: true,
    default: true, help: 'Ask the engine for exactly max_tokens (ignore_eos), so output lengths follow --output-tokens',
  },
  {
    key: 'requestTimeout', flag: 'request-timeout', env: 'DYN_BENCH_REQUEST_TIMEOUT', envIsLocal: true, type: 'float', min: 0, minExclusive: true,
    group: 'Benchmark', scope: 'bench', built: true, default: 600, metavar: '<seconds>', help: 'Abort a request after this long and count it as an error',
  },
  {
    key: 'seed', flag: 'seed', env: 'DYN_BENCH_SEED', envIsLocal: true, type: 'int', min: 0, group: 'Benchmark', scope: 'bench', built: true,
    default: 0, help: 'Seed of the prompt text, lengths and arrival times (runs with the same seed send the same requests)',
  },
  {
    key: 'output', flag: 'output', env: 'DYN_BENCH_OUTPUT', envIsLocal: true, type: 'path', group: 'Benchmark', scope: 'bench', built: true,
    help: 'Write the results as JSON to this file',
  },
  {
    key: 'html', flag: 'html', env: 'DYN_BENCH_HTML', envIsLocal: true, type: 'path', group: 'Benchmark', scope: 'bench', built: true,
    help: 'Write a self-contained HTML report (latency vs throughput, TTFT distribution) to this file',
  },
] as const satisfies readonly OptionSpec[];
