// Who may call which route: one check in the HTTP service's onRequest hook, for every route. When API keys are
// configured every route needs one except the probes and the API description (and /metrics unless
// protected); admin routes answer 404 when the admin surface is turned off.
// Each family answers in its own error shape: OpenAI's envelope, Anthropic's, the admin routes' and
// Triton's (`{"error": "..."}`). Triton's /v2/health probes are open; its model load/unload are admin.
// The dashboard is opened by a browser, which cannot add a bearer header: it also takes the key as
// the password of HTTP Basic authentication, and its refusal makes the browser prompt for one.

import type { FastifyReply, FastifyRequest } from 'fastify';
import { basicPassword, bearerToken, NotFoundError, UnauthenticatedError, type DynamoError, type HttpPaths, type KeyCheck } from '../../protocols/index.js';
import { adminErrorReply, anthropicErrorReply, httpErrorReply, type ErrorEnvelope } from './error-envelope.js';
import { sendError, type RequestGate } from './server.js';
import { TRITON_ADMIN_ROUTES, TRITON_OPEN_ROUTES, TRITON_PREFIX, tritonErrorReply } from './triton/index.js';

export interface AccessOptions {
  keys: KeyCheck;
  /** The admin surface is served (DYN_ENABLE_FRONTEND_ADMIN_API); off, its routes answer 404. */
  adminApi: boolean;
  /** --protect-metrics: /metrics needs a key like the API routes. */
  protectMetrics: boolean;
}

type RouteClass = 'open' | 'api' | 'anthropic' | 'triton' | 'admin' | 'dashboard';

interface ClassRules {
  envelope: ErrorEnvelope;
  /** The credential headers the refusal names. */
  send: string;
  /** `www-authenticate` of a refusal for a missing or wrong key. */
  challenge: string;
  /** Also take the key as a Basic password. */
  basic?: boolean;
}

/** How each class answers a refusal, and which credentials it takes. */
const CLASSES: Readonly<Record<Exclude<RouteClass, 'open'>, ClassRules>> = {
  api: { envelope: httpErrorReply, send: '`Authorization: Bearer <key>`', challenge: 'Bearer' },
  anthropic: { envelope: anthropicErrorReply, send: '`x-api-key: <key>` or `Authorization: Bearer <key>`', challenge: 'Bearer' },
  triton: { envelope: tritonErrorReply, send: '`Authorization: Bearer <key>`', challenge: 'Bearer' },
  admin: { envelope: (err) => adminErrorReply(err), send: '`Authorization: Bearer <key>`', challenge: 'Bearer' },
  dashboard: {
    envelope: httpErrorReply,
    send: '`Authorization: Bearer <key>`, or the key as the password when the browser asks',
    challenge: 'Basic realm="dynamo-ts dashboard", charset="UTF-8"',
    basic: true,
  },
};

/** The class of a request's route, by the path it was registered under (unmatched routes are `api`). */
function classifier(paths: HttpPaths, protectMetrics: boolean): (route: string | undefined) => RouteClass {
  const open = new Set([paths.health, paths.live, paths.openapi, ...TRITON_OPEN_ROUTES, ...(protectMetrics ? [] : [paths.metrics])]);
  const admin = new Set([paths.busyThreshold, ...TRITON_ADMIN_ROUTES]);
  const under = (route: string, base: string): boolean => route === base || route.startsWith(`${base}/`);
  return (route) => {
    if (route === undefined) return 'api';
    if (open.has(route) || under(route, paths.docs)) return 'open';
    if (admin.has(route)) return 'admin';
    if (under(route, paths.dashboard)) return 'dashboard';
    if (under(route, paths.anthropic)) return 'anthropic';
    if (under(route, TRITON_PREFIX)) return 'triton';
    return 'api';
  };
}

/** The keys a request presents: its bearer token, its `x-api-key` and, where taken, its Basic password. */
function presentedKeys(req: FastifyRequest, basic: boolean): string[] {
  const header = (name: string): string | undefined => {
    const v = req.headers[name];
    return Array.isArray(v) ? v[0] : v;
  };
  const authorization = header('authorization');
  return [bearerToken(authorization), header('x-api-key'), basic ? basicPassword(authorization) : undefined].filter((k): k is string => k !== undefined);
}

/**
 * Why a request's credentials do not pass, or null when they do (or no key is configured); `send`
 * names the credentials a refusal asks for.
 */
export function keyRefusal(req: FastifyRequest, keys: KeyCheck, send: string, basic = false): UnauthenticatedError | null {
  if (!keys.required) return null;
  const presented = presentedKeys(req, basic);
  if (presented.length === 0) return new UnauthenticatedError(`Missing API key: send ${send}`);
  return presented.some((k) => keys.accepts(k)) ? null : new UnauthenticatedError('Invalid API key');
}

function refuse(reply: FastifyReply, cls: Exclude<RouteClass, 'open'>, err: DynamoError, overloadStatus: number): FastifyReply {
  if (err.kind === 'unauthenticated') reply.header('www-authenticate', CLASSES[cls].challenge);
  return sendError(reply, err, overloadStatus, CLASSES[cls].envelope);
}

/**
 * The access check of every request, run in the server's one onRequest hook (`gate` in server.ts):
 * true when the request goes on; a refused request has been answered and goes no further.
 */
export function accessGate(paths: HttpPaths, opts: AccessOptions, overloadStatus: number): RequestGate {
  const classOf = classifier(paths, opts.protectMetrics);
  return (req, reply) => {
    // With no keys and the admin surface served nothing is refused: no route lookup (fastify
    // builds a new routeOptions object on each read).
    if (opts.adminApi && !opts.keys.required) return true;
    const cls = classOf(req.routeOptions.url);
    if (cls === 'open') return true;
    if (cls === 'admin' && !opts.adminApi) {
      const path = req.url.split('?')[0];
      refuse(reply, cls, new NotFoundError(`${req.method} ${path}: the admin API is off (DYN_ENABLE_FRONTEND_ADMIN_API=false or DYN_DISABLE_FRONTEND_ADMIN_API)`), overloadStatus);
      return false;
    }
    const refusal = keyRefusal(req, opts.keys, CLASSES[cls].send, CLASSES[cls].basic);
    if (refusal) {
      refuse(reply, cls, refusal, overloadStatus);
      return false;
    }
    return true;
  };
}
