import { RESPONSE_STORE_NAMES } from '../../protocols/index.js';
import { allBuilt, type OptionSpec } from '../option-spec.js';

/**
 * Where the Responses API keeps the responses it stores (`store`, `previous_response_id`, GET/DELETE
 * by id), and the bounds of its WebSocket mode.
 */
export const responsesOptions = [
  {
    key: 'responseStore', flag: 'response-store', env: 'DYN_RESPONSE_STORE', envIsLocal: true, type: 'enum', choices: allBuilt(RESPONSE_STORE_NAMES),
    group: 'HTTP & Networking', scope: 'frontend', built: true,
    help:
      'Where /v1/responses keeps stored responses, bounded by --response-store-max-entries and --response-store-ttl-secs. ' +
      'memory: in this frontend process; file: one JSON file per response in a directory (--response-store-path) shared by every frontend process of the host and kept across restarts; ' +
      'etcd: keys under dynamo-ts/responses/ on ETCD_ENDPOINTS, each under a lease of the TTL; nats: the JetStream KV bucket dynamo-ts-responses on NATS_SERVER (nats-server -js). ' +
      'etcd and nats share the responses between the frontends of every host. ' +
      'Unset: memory for a frontend of one process, file for a pool of several (--http-workers; by default one per core), so that every process of a pool finds every response; memory is refused for a pool',
  },
  {
    key: 'responseStoreMaxEntries', flag: 'response-store-max-entries', env: 'DYN_RESPONSE_STORE_MAX_ENTRIES', envIsLocal: true, type: 'int', min: 1,
    metavar: '<count>', group: 'HTTP & Networking', scope: 'frontend', built: true, default: 10000,
    help: 'The most responses the store keeps; storing one more drops the oldest (the file store checks after a share of the puts: up to 1% more per frontend process between checks)',
  },
  {
    key: 'responseStoreTtlSecs', flag: 'response-store-ttl-secs', env: 'DYN_RESPONSE_STORE_TTL_SECS', envIsLocal: true, type: 'int', min: 1,
    metavar: '<seconds>', group: 'HTTP & Networking', scope: 'frontend', built: true, default: 86400,
    help: 'How long a stored response is kept (default 24 h); after that it reads as unknown (404)',
  },
  {
    key: 'responseStorePath', flag: 'response-store-path', env: 'DYN_RESPONSE_STORE_PATH', envIsLocal: true, type: 'path',
    group: 'HTTP & Networking', scope: 'frontend', built: true,
    help: "The file response store's directory; unset: dynamo-ts-responses-<uid> in the system's temporary directory (made private to the user), the same for every frontend process of the host",
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
