import { kserveClient } from './kserve-grpc.js';
import { openAiClient } from './openai-http.js';
import type { BenchClient } from './outcome.js';

export type { BenchClient, BenchRequest, Message, Outcome } from './outcome.js';
export { grpcTarget } from './kserve-grpc.js';

/** The clients by `--api` name. */
export const CLIENTS: Readonly<Record<'chat' | 'completions' | 'kserve', (url: string) => BenchClient>> = {
  chat: (url) => openAiClient('chat', url),
  completions: (url) => openAiClient('completions', url),
  kserve: kserveClient,
};
