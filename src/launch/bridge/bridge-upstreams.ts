// What one bridged upstream is: its URL, how it takes input, its KV event publisher and its key.
// From the flags of `worker openai` here; from an --upstream-config file in upstream-config.ts.
import { ConfigError, type Config } from '../../config/index.js';
import type { UpstreamInput } from '../../engines/openai-bridge/index.js';

export interface UpstreamSpec {
  url: string;
  input: UpstreamInput;
  /** vLLM's ZMQ KV event publisher, `tcp://host:port`. */
  kvEvents?: string;
  /** Sent as `Authorization: Bearer <key>`. */
  apiKey?: string;
}

/** A problem with `value`, or undefined: an http(s) URL with a host and nothing after the path. */
export function urlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'not a URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `not an http(s) URL (${url.protocol})`;
  if (url.search !== '' || url.hash !== '') return 'a base URL takes no query or fragment';
  return undefined;
}

export function zmqEndpointProblem(value: string): string | undefined {
  return /^tcp:\/\/[^\s:/]+:\d+$/.test(value) || /^tcp:\/\/\[[^\]]+\]:\d+$/.test(value) ? undefined : 'not a tcp://HOST:PORT endpoint';
}

/**
 * Why the bridge refuses `--enable-rl`: upstream's RL workers drive their engine in process (pause
 * and resume generation, weight transfer and reload), and upstream maps none of it onto an
 * OpenAI-compatible server's HTTP routes. Serving no `rl` endpoint quietly would leave the trainer's
 * fan-out short of these instances, so the worker does not start.
 */
const RL_REFUSED =
  "--enable-rl (DYN_ENABLE_RL): 'dynamo-ts worker openai' cannot serve the rl endpoint. Pause, resume and weight updates need the engine in process, as upstream's engine workers hold it; an OpenAI-compatible server offers no routes upstream maps them to. Run RL rollouts on workers that serve rl (the mocker's --enable-rl for tests), or start this worker without DYN_ENABLE_RL";

/** `--upstream URL[@tcp://host:port]` …, paired by position with `--kv-events-endpoint`. */
export function upstreamsFromFlags(config: Config): UpstreamSpec[] {
  if (config.enableRl) throw new ConfigError(RL_REFUSED);
  if (config.upstream.length === 0) throw new ConfigError("'dynamo-ts worker openai' needs at least one --upstream <url>");
  if (config.kvEventsEndpoint.length > config.upstream.length) {
    throw new ConfigError(`--kv-events-endpoint given ${config.kvEventsEndpoint.length} times for ${config.upstream.length} --upstream; they pair by position`);
  }
  return config.upstream.map((written, i) => {
    const at = written.indexOf('@tcp://');
    const url = at < 0 ? written : written.slice(0, at);
    const kvEvents = at < 0 ? config.kvEventsEndpoint[i] : written.slice(at + 1);
    if (at >= 0 && config.kvEventsEndpoint[i] !== undefined) {
      throw new ConfigError(`--upstream ${written} names its KV events endpoint and --kv-events-endpoint ${config.kvEventsEndpoint[i]} is paired with it too; give one`);
    }
    const problem = urlProblem(url);
    if (problem) throw new ConfigError(`--upstream ${written}: ${problem}`);
    const kvProblem = kvEvents === undefined ? undefined : zmqEndpointProblem(kvEvents);
    if (kvProblem) throw new ConfigError(`--kv-events-endpoint ${kvEvents}: ${kvProblem}`);
    return { url, input: config.upstreamInput, kvEvents, apiKey: config.upstreamApiKey };
  });
}
