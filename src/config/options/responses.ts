import type { ResponseStoreName } from '../../protocols/index.js';
import type { OptionSpec } from '../option-spec.js';

/** Which stores are built: the others are refused at startup, naming the option. */
const STORES = { memory: true, sqlite: false, etcd: false, nats: false } as const satisfies Record<ResponseStoreName, boolean>;

/** Where the Responses API keeps the responses it stores (`store`, `previous_response_id`, GET/DELETE by id). */
export const responsesOptions = [
  {
    key: 'responseStore', flag: 'response-store', env: 'DYN_RESPONSE_STORE', envIsLocal: true, type: 'enum', choices: STORES,
    group: 'HTTP & Networking', scope: 'frontend', built: true, default: 'memory',
    notBuiltHint: 'memory is the only response store built so far (it is per frontend process)',
    help: 'Where /v1/responses keeps stored responses. memory: in this frontend process, bounded by --response-store-max-entries and --response-store-ttl-secs (a pool of frontend processes does not share it); sqlite (a file shared by the processes of a host), etcd and nats (a cluster) are not built yet',
  },
  {
    key: 'responseStoreMaxEntries', flag: 'response-store-max-entries', env: 'DYN_RESPONSE_STORE_MAX_ENTRIES', envIsLocal: true, type: 'int', min: 1,
    metavar: '<count>', group: 'HTTP & Networking', scope: 'frontend', built: true, default: 10000,
    help: 'The most responses the store keeps; storing one more drops the oldest',
  },
  {
    key: 'responseStoreTtlSecs', flag: 'response-store-ttl-secs', env: 'DYN_RESPONSE_STORE_TTL_SECS', envIsLocal: true, type: 'int', min: 1,
    metavar: '<seconds>', group: 'HTTP & Networking', scope: 'frontend', built: true, default: 86400,
    help: 'How long a stored response is kept (default 24 h); after that it reads as unknown (404)',
  },
] as const satisfies readonly OptionSpec[];
