import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { REQUEST_CHANNEL_NAMES, type RequestDispatchEvent } from '../../src/protocols/index.js';

/** The instance of each dispatch (read on the request-events channel) while `run` runs. */
export async function dispatchesDuring(run: () => Promise<void>): Promise<bigint[]> {
  const seen: bigint[] = [];
  const listener = (message: unknown): void => void seen.push((message as RequestDispatchEvent).instanceId);
  subscribe(REQUEST_CHANNEL_NAMES.dispatch, listener);
  try {
    await run();
  } finally {
    unsubscribe(REQUEST_CHANNEL_NAMES.dispatch, listener);
  }
  return seen;
}
