import type { Subcommand } from './option-spec.js';

/** One-line summaries of the subcommands, shared by help and docs. */
export const COMMAND_SUMMARIES: Readonly<Record<Subcommand, string>> = {
  frontend: 'OpenAI-compatible HTTP frontend that discovers workers and routes requests to them',
  mocker: 'Simulated vLLM-like engine that registers itself as a worker',
  serve: 'Frontend plus embedded mocker engines in one process (in-memory discovery, in-process planes)',
  worker: 'Bridge workers: `worker openai --upstream URL` registers OpenAI-compatible servers (vLLM, SGLang, llama.cpp, Ollama) as instances of a model',
  bench: 'Load generator: synthetic or trace-replayed requests against a server; TTFT, inter-token and end-to-end latency, throughput',
};
