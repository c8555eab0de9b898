import type { ResponseStoreName } from '../../protocols/index.js';
import type { OptionSpec } from '../option-spec.js';

/** Which stores are built: the others are refused at startup, naming the option. */
const STORES = { memory: true, sqlite: true, etcd: false, nats: false } as const satisfies Record<ResponseStoreName, boolean>;

/**
 * Where the Responses API keeps the responses it stores (`store`, `previous_response_id`, GET/DELETE
 * by id), and the bounds of its WebSocket mode.
 */
export const responsesOptions = [
  {
    key: 'responseStore', flag: 'response-store', env: 'DYN_RESPONSE_STORE', envIsLocal: true, type: 'enum', choices: STORES,
    group: 'HTTP & Networking', scope: 'frontend', built: true, default: 'memory',
    notBuiltHint: 'a store shared by a cluster is not built yet: use sqlite to share one file between the frontend processes of a host',
    help: 'Where /v1/responses keeps stored responses, bounded by --response-store-max-entries and --response-store-ttl-secs. memory: in this frontend process (the processes of a pool do not share it); sqlite: a file (--response-store-path) shared by every frontend process of the host and kept across restarts; etcd and nats (a cluster) are not built yet',
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
  {
    key: 'responseStorePath', flag: 'response-store-path', env: 'DYN_RESPONSE_STORE_PATH', envIsLocal: true, type: 'path',
    group: 'HTTP & Networking', scope: 'frontend', built: true,
    help: "The sqlite response store's file; unset: dynamo-ts-responses.sqlite in the system's temporary directory, the same for every process of the host",
  },
  {
    key: 'responsesWsMaxMessageMb', flag: 'responses-ws-max-message-mb', env: 'DYN_RESPONSES_WS_MAX_MESSAGE_MB', envIsLocal: true, type: 'int', min: 1,
    metavar: '<MB>', group: 'HTTP & Networking', scope: 'frontend', built: true, default: 45,
    help: 'The largest message a client may send on a /v1/responses WebSocket (a `response.create` event), in MB; a larger one closes the connection with code 1009',
  },
  {
    key: 'responsesWsIdleTimeoutSecs', flag: 'responses-ws-idle-timeout-secs', env: 'DYN_RESPONSES_WS_IDLE_TIMEOUT_SECS', envIsLocal: true, type: 'int', min: 1,
    metavar: '<seconds>', group: 'HTTP & Networking', scope: 'frontend', built: true, default: 3600,
    help: 'A /v1/responses WebSocket with no response in progress is closed (code 1000) after this long without a client event; its connection-local responses go with it',
  },
] as const satisfies readonly OptionSpec[];
