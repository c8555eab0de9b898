import type { OptionSpec } from '../option-spec.js';

export const deprecatedOptions = [
  {
    key: 'enforceDisagg', flag: 'enforce-disagg', env: 'DYN_ENFORCE_DISAGG', type: 'bool',
    group: 'Deprecated', scope: 'frontend', built: true, default: false,
    deprecated: 'is deprecated and ignored',
    help: 'Deprecated, ignored',
  },
  {
    key: 'admissionControl', flag: 'admission-control', env: 'DYN_ADMISSION_CONTROL', type: 'enum',
    choices: { none: true, 'token-capacity': true },
    group: 'Deprecated', scope: 'frontend', built: true,
    deprecated: 'was removed and is ignored; set busy thresholds with the --active-* flags',
    help: 'Removed, ignored',
  },
  {
    key: 'routerDurableKvEvents', flag: 'router-durable-kv-events', env: 'DYN_ROUTER_DURABLE_KV_EVENTS', type: 'bool',
    group: 'Deprecated', scope: 'frontend', built: true, default: false,
    deprecated: 'is deprecated and ignored; the event-plane local indexer replaces it',
    help: 'Deprecated, ignored',
  },
] as const satisfies readonly OptionSpec[];
