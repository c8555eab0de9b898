import type { OptionSpec } from '../option-spec.js';

/** The rule for admin routes, stated once for the help of both options that shape it. */
export const ADMIN_RULE =
  'The admin surface is /busy_threshold, Triton\'s /v2/repository load/unload and gRPC RepositoryModelLoad/Unload; when API keys are configured its calls need a key like every route';

export const securityOptions = [
  {
    key: 'apiKey', flag: 'api-key', env: 'DYN_API_KEYS', envIsLocal: true, type: 'list', metavar: '<key>', secret: true,
    secretElsewhere: '--api-keys-file', group: 'Security', scope: 'frontend', built: true, default: [],
    help: 'API key accepted as `Authorization: Bearer <key>` (Anthropic clients: `x-api-key`; gRPC: `authorization` metadata). When any key is set, every inference and admin route needs one (401 / UNAUTHENTICATED otherwise); /health, /live, /metrics, /openapi.json and /docs stay open',
  },
  {
    key: 'apiKeysFile', flag: 'api-keys-file', env: 'DYN_API_KEYS_FILE', envIsLocal: true, type: 'path', mustExist: true,
    group: 'Security', scope: 'frontend', built: true,
    help: 'File of API keys, one per line (# starts a comment), added to --api-key; re-read when it changes',
  },
  {
    key: 'protectMetrics', flag: 'protect-metrics', env: 'DYN_PROTECT_METRICS', envIsLocal: true, type: 'bool',
    group: 'Security', scope: 'frontend', built: true, default: false,
    help: 'With API keys, /metrics needs a key too (it stays open by default for scrapers)',
  },
  {
    key: 'enableAdminApi', flag: 'enable-admin-api', env: 'DYN_ENABLE_FRONTEND_ADMIN_API', type: 'bool',
    group: 'Security', scope: 'frontend', built: true, default: true,
    help: `Serve the admin surface (on by default, as upstream); false (--no-enable-admin-api) removes it: HTTP 404, gRPC UNIMPLEMENTED. ${ADMIN_RULE}`,
  },
] as const satisfies readonly OptionSpec[];
