import type { OptionSpec } from '../option-spec.js';

export const deprecatedOptions = [
  {
    key: 'enforceDisagg', flag: 'enforce-disagg', env: 'DYN_ENFORCE_DISAGG', type: 'bool',
    group: 'Deprecated', scope: 'frontend', built: true, default: false,
    deprecated: 'is deprecated and ignored',
    help: 'Deprecated, ignored',
  },
  {
    key: 'routerDurableKvEvents', flag: 'router-durable-kv-events', env: 'DYN_ROUTER_DURABLE_KV_EVENTS', type: 'bool',
    group: 'Deprecated', scope: 'frontend', built: true, default: false,
    deprecated: 'is deprecated and ignored; the event-plane local indexer replaces it',
    help: 'Deprecated, ignored',
  },
] as const satisfies readonly OptionSpec[];
