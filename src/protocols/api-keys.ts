// The API keys a frontend accepts, shared by its HTTP routes and its gRPC service. Keys are held
// as SHA-256 digests and compared with timingSafeEqual: equal-length digests make the comparison
// take the same time whatever the presented key, and every key is compared, match or not.

import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (key: string): Buffer => createHash('sha256').update(key, 'utf8').digest();

/** What a frontend needs to know about its keys; launch/ keeps them current (files are re-read). */
export interface KeyCheck {
  /** True when at least one key is configured: then requests must present one. */
  readonly required: boolean;
  accepts(presented: string | undefined): boolean;
}

export class ApiKeys implements KeyCheck {
  private digests: readonly Buffer[] = [];

  constructor(keys: Iterable<string> = []) {
    this.replace(keys);
  }

  /** Swaps the whole set at once (empty keys are ignored). */
  replace(keys: Iterable<string>): void {
    this.digests = [...new Set([...keys].filter((k) => k.length > 0))].map(digest);
  }

  get required(): boolean {
    return this.digests.length > 0;
  }

  get size(): number {
    return this.digests.length;
  }

  accepts(presented: string | undefined): boolean {
    if (presented === undefined || presented.length === 0) return false;
    const candidate = digest(presented);
    let match = false;
    for (const known of this.digests) match = timingSafeEqual(candidate, known) || match;
    return match;
  }
}

/** Keys from several sources: required when any is, accepted when any accepts. */
export function anyKeyOf(checks: readonly KeyCheck[]): KeyCheck {
  return {
    get required() {
      return checks.some((c) => c.required);
    },
    accepts: (presented) => checks.some((c) => c.accepts(presented)),
  };
}

/** The token of an `Authorization: Bearer <token>` value (scheme case-insensitive), if it is one. */
export function bearerToken(authorization: string | undefined): string | undefined {
  const match = authorization ? /^Bearer\s+(\S+)\s*$/i.exec(authorization.trim()) : null;
  return match?.[1];
}

/**
 * The password of an `Authorization: Basic <base64(user:password)>` value, if it is one: how a
 * browser presents a key it was prompted for (the user name is ignored).
 */
export function basicPassword(authorization: string | undefined): string | undefined {
  const match = authorization ? /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization.trim()) : null;
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon >= 0 ? decoded.slice(colon + 1) : undefined;
}
