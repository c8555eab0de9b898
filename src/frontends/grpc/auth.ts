import { createHash, timingSafeEqual } from 'node:crypto';
import type * as grpc from '@grpc/grpc-js';
import { UnauthenticatedError } from '../../protocols/index.js';

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

/** Checks `authorization: Bearer <token>` metadata; comparing digests keeps the check constant-time. */
export class BearerAuth {
  private readonly expected: Buffer;

  constructor(token: string) {
    this.expected = digest(token);
  }

  check(metadata: grpc.Metadata): void {
    const header = metadata.get('authorization')[0];
    const value = typeof header === 'string' ? header : header?.toString('utf8');
    const match = value ? /^Bearer\s+(.+)$/i.exec(value.trim()) : null;
    if (!match) throw new UnauthenticatedError('missing bearer token in authorization metadata');
    if (!timingSafeEqual(digest(match[1]!), this.expected)) throw new UnauthenticatedError('invalid bearer token');
  }
}
