import type { OptionSpec } from '../option-spec.js';

/** The rule for admin routes, stated once for the help of both options that shape it. */
export const ADMIN_RULE =
  'Admin routes (/busy_threshold, gRPC RepositoryModelLoad/Unload) need an API key when keys are configured; with no key they are refused (403 / PERMISSION_DENIED) unless --enable-admin-api';

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
    group: 'Security', scope: 'frontend', built: true, default: false,
    help: `Serve the admin routes without an API key. ${ADMIN_RULE}; DYN_DISABLE_FRONTEND_ADMIN_API removes /busy_threshold altogether (404)`,
  },
] as const satisfies readonly OptionSpec[];
