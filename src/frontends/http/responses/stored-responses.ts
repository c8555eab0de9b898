// The stored responses as the routes see them: each belongs to the API key that created it (kept
// as its SHA-256, never the key), and a caller finds only its own; with no keys configured every
// response belongs to no one and anyone finds it. A response of someone else reads as unknown.

import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { bearerToken, NotFoundError, type KeyCheck } from '../../../protocols/index.js';
import { previousResponseId } from './request.js';
import { STORABLE_ID, type ResponseStore, type StoredResponse } from './store/index.js';

type Json = Record<string, unknown>;

export class StoredResponses {
  /**
   * @param store resolves once the store is open (the service waits for it before serving).
   * @param keys the service's API keys; absent when it takes none.
   */
  constructor(
    private readonly store: Promise<ResponseStore>,
    private readonly keys: KeyCheck | undefined,
  ) {}

  /** Who a request is: the hash of the accepted key it presents; null while no key is required. */
  ownerOf(headers: IncomingHttpHeaders): string | null {
    if (!this.keys?.required) return null;
    const header = (name: string): string | undefined => {
      const value = headers[name];
      return Array.isArray(value) ? value[0] : value;
    };
    const key = [bearerToken(header('authorization')), header('x-api-key')].find((k) => k !== undefined && this.keys!.accepts(k));
    return key === undefined ? null : createHash('sha256').update(key, 'utf8').digest('hex');
  }

  /** The items a request continuing a stored response reads before its input: none without `previous_response_id`. */
  async earlierItems(body: unknown, owner: string | null): Promise<Json[]> {
    const id = previousResponseId(body);
    return id === null ? [] : this.history(id, owner);
  }

  async put(stored: StoredResponse): Promise<void> {
    await (await this.store).put(stored);
  }

  /** The owner's response of that id; a 404 naming the id otherwise. */
  async get(id: string, owner: string | null): Promise<StoredResponse> {
    const stored = await this.find(id, owner);
    if (!stored) throw new NotFoundError(`No response found with id '${id}'.`);
    return stored;
  }

  async delete(id: string, owner: string | null): Promise<void> {
    await this.get(id, owner);
    await (await this.store).delete(id);
  }

  /**
   * What a response continuing `id` reads first: every response of the chain, oldest first, as
   * its input items then its output items. An earlier link that expired or was deleted ends the chain.
   */
  async history(id: string, owner: string | null): Promise<Json[]> {
    const latest = await this.find(id, owner);
    if (!latest) throw new NotFoundError(`Previous response with id '${id}' not found.`, { code: 'previous_response_not_found', param: 'previous_response_id' });
    const chain = [latest];
    for (let link = previousOf(latest); link !== null; ) {
      const earlier = await this.find(link, owner);
      if (!earlier) break;
      chain.unshift(earlier);
      link = previousOf(earlier);
    }
    return chain.flatMap((stored) => [...stored.inputItems, ...(stored.response.output as Json[])]);
  }

  private async find(id: string, owner: string | null): Promise<StoredResponse | undefined> {
    // No response has any other id: the store is not asked.
    if (!STORABLE_ID.test(id)) return undefined;
    const stored = await (await this.store).get(id);
    return stored?.owner === owner ? stored : undefined;
  }
}

function previousOf(stored: StoredResponse): string | null {
  const link = stored.response.previous_response_id;
  return typeof link === 'string' ? link : null;
}
