import { DISCOVERY_BACKEND_NAMES, EVENT_PLANE_NAMES, HUB_REPO_REF, REQUEST_PLANE_NAMES } from '../../protocols/index.js';
import { allBuilt, type OptionSpec } from '../option-spec.js';

const U32_MAX = 4294967295;
/** Why `--response-plane quic` cannot be built here, and what to use instead. */
const QUIC_NEEDS =
  "it needs a QUIC stack, which Node 20 lacks (node:quic is experimental and behind a flag from Node 23.8); a native QUIC addon or a newer Node would make it possible. Use tcp (with --tcp-tls-* for encryption), which upstream workers also speak";
const TRY_SERVE = "run 'dynamo-ts serve' for the frontend and the mocker in one process (in-memory discovery, in-process planes)";

export const runtimeOptions = [
  {
    key: 'migrationLimit', flag: 'migration-limit', env: 'DYN_MIGRATION_LIMIT', type: 'int', min: 0, max: U32_MAX,
    group: 'Fault Tolerance', scope: 'both', built: true,
    help: "Maximum times a request that has started answering moves to another worker when its worker is lost (0: never; a request lost before its first token is always retried elsewhere). Frontend: applies to every model (unset: each model card's migration_limit). Worker: published as its card's migration_limit (unset: 0)",
  },
  {
    key: 'migrationMaxSeqLen', flag: 'migration-max-seq-len', env: 'DYN_MIGRATION_MAX_SEQ_LEN', type: 'int', min: 1, max: U32_MAX,
    group: 'Fault Tolerance', scope: 'frontend', built: true,
    help: 'A request no longer migrates once prompt + generated tokens exceed this (exactly this many still migrates)',
  },
  {
    key: 'gracefulShutdownGracePeriodSecs', flag: 'graceful-shutdown-grace-period-secs', env: 'DYN_GRACEFUL_SHUTDOWN_GRACE_PERIOD_SECS',
    type: 'float', min: 0, group: 'Fault Tolerance', scope: 'worker', built: true, default: 5,
    help: "On SIGTERM/SIGINT a worker leaves discovery at once, then lets its in-flight requests run this long; those still running then end with an engine-shutdown error, which frontends migrate to another worker (within their --migration-limit; otherwise the client gets the error). 0: end them at once",
  },
  {
    key: 'workerSilenceCheck', flag: 'worker-silence-check', env: 'DYN_WORKER_SILENCE_CHECK', envIsLocal: true, type: 'bool',
    group: 'Fault Tolerance', scope: 'frontend', built: true, default: true,
    help: 'Ping a worker whose stream stays silent past its bound (the --worker-silence-* settings); one that does not answer, or answers but sends nothing on any stream for the ceiling, leaves routing and its streams migrate',
  },
  {
    key: 'workerSilenceFloorSecs', flag: 'worker-silence-floor-secs', env: 'DYN_WORKER_SILENCE_FLOOR_SECS', envIsLocal: true,
    type: 'float', min: 0, minExclusive: true, group: 'Fault Tolerance', scope: 'frontend', built: true, default: 1.5,
    help: "Shortest silence after a stream's first token that gets its worker pinged",
  },
  {
    key: 'workerSilencePaceFactor', flag: 'worker-silence-pace-factor', env: 'DYN_WORKER_SILENCE_PACE_FACTOR', envIsLocal: true,
    type: 'float', min: 1, group: 'Fault Tolerance', scope: 'frontend', built: true, default: 10,
    help: "After its first token a stream may be silent this many times its worker's recent gap between tokens (within the floor and the ceiling)",
  },
  {
    key: 'workerSilenceCeilingSecs', flag: 'worker-silence-ceiling-secs', env: 'DYN_WORKER_SILENCE_CEILING_SECS', envIsLocal: true,
    type: 'float', min: 0, minExclusive: true, group: 'Fault Tolerance', scope: 'frontend', built: true, default: 30,
    help: 'Longest silence before a worker is pinged; also how long a worker that answers pings may send nothing on any stream before it counts as stuck',
  },
  {
    key: 'workerSilenceFirstTokenSecs', flag: 'worker-silence-first-token-secs', env: 'DYN_WORKER_SILENCE_FIRST_TOKEN_SECS', envIsLocal: true,
    type: 'float', min: 0, minExclusive: true, group: 'Fault Tolerance', scope: 'frontend', built: true, default: 3,
    help: "Silence before a stream's first token that gets its worker pinged, plus the prompt's time at --worker-silence-prefill-rate",
  },
  {
    key: 'workerSilencePrefillRate', flag: 'worker-silence-prefill-rate', env: 'DYN_WORKER_SILENCE_PREFILL_RATE', envIsLocal: true,
    type: 'float', min: 0, minExclusive: true, group: 'Fault Tolerance', scope: 'frontend', built: true, default: 5000,
    help: 'Prompt tokens per second a worker prefills at the slowest: sets the first-token bound of long prompts',
  },
  {
    key: 'workerPingTimeoutSecs', flag: 'worker-ping-timeout-secs', env: 'DYN_WORKER_PING_TIMEOUT_SECS', envIsLocal: true,
    type: 'float', min: 0, minExclusive: true, group: 'Fault Tolerance', scope: 'frontend', built: true, default: 1,
    help: 'How long a worker may take to answer a request-plane ping before it counts as unresponsive',
  },
  {
    key: 'admissionControl', flag: 'admission-control', env: 'DYN_ADMISSION_CONTROL', type: 'enum',
    choices: { none: true, 'token-capacity': true }, group: 'Fault Tolerance', scope: 'frontend', built: true,
    help: 'token-capacity applies the busy thresholds below; none clears them. Unset: they apply when given (newest upstream). Router queueing stays with --router-queue-threshold',
  },
  {
    key: 'activeDecodeBlocksThreshold', flag: 'active-decode-blocks-threshold', env: 'DYN_ACTIVE_DECODE_BLOCKS_THRESHOLD',
    type: 'float', min: 0, max: 1, group: 'Fault Tolerance', scope: 'frontend', built: true,
    help: 'A worker is busy when its KV block usage exceeds this fraction (off when unset)',
  },
  {
    key: 'activePrefillTokensThreshold', flag: 'active-prefill-tokens-threshold', env: 'DYN_ACTIVE_PREFILL_TOKENS_THRESHOLD',
    type: 'int', min: 0, group: 'Fault Tolerance', scope: 'frontend', built: true,
    help: 'A worker is busy when its active prefill tokens exceed this count (off when unset)',
  },
  {
    key: 'activePrefillTokensThresholdFrac', flag: 'active-prefill-tokens-threshold-frac', env: 'DYN_ACTIVE_PREFILL_TOKENS_THRESHOLD_FRAC',
    type: 'float', min: 0, group: 'Fault Tolerance', scope: 'frontend', built: true,
    help: 'A worker is busy when active prefill tokens exceed this multiple of max_num_batched_tokens; ORed with the absolute threshold (off when unset)',
  },
  {
    key: 'namespace', flag: 'namespace', env: 'DYN_NAMESPACE', type: 'string', metavar: '<name>',
    group: 'Model Discovery', scope: 'both', built: true,
    help: "Namespace scope: the frontend only serves models from this exact namespace (all when unset or 'dynamo'); the mocker registers in it ('dynamo' when unset)",
  },
  {
    key: 'namespacePrefix', flag: 'namespace-prefix', env: 'DYN_NAMESPACE_PREFIX', type: 'string', metavar: '<prefix>',
    group: 'Model Discovery', scope: 'frontend', built: true,
    help: "Namespace prefix scope: matches P, P-* (wins over --namespace)",
  },
  {
    key: 'namespacePrefixStrict', env: 'DYN_NAMESPACE_PREFIX_STRICT', type: 'bool',
    group: 'Model Discovery', scope: 'frontend', built: true, default: false,
    help: 'Restrict prefix matching to P, P-legacy and P-<8 lowercase hex>',
  },
  {
    key: 'modelName', flag: 'model-name', env: 'DYN_MODEL_NAME', type: 'string', metavar: '<name>',
    group: 'Model Discovery', scope: 'both', built: true,
    help: 'Served model name (default: the name derived from the model path)',
  },
  {
    key: 'modelPath', flag: 'model-path', env: 'DYN_MODEL_PATH', type: 'path', metavar: '<dir|org/name[@rev]>',
    mustExist: true, mustExistUnless: { regex: HUB_REPO_REF, describe: 'a Hugging Face repository id (org/name[@rev])' },
    group: 'Model Discovery', scope: 'both', built: true,
    help: 'Local model directory (tokenizer and config), or a Hugging Face repository id whose config and tokenizer files (never weights) are fetched into the Hugging Face cache and reused from it; the bundled Qwen3 tokenizer is used when unset',
  },
  {
    key: 'modelRevision', flag: 'model-revision', env: 'DYN_MODEL_REVISION', envIsLocal: true, type: 'string', metavar: '<rev>',
    group: 'Model Discovery', scope: 'both', built: true,
    help: 'Branch, tag or commit of the --model-path repository (wins over org/name@rev; default main)',
  },
  {
    key: 'hfEndpoint', env: 'HF_ENDPOINT', type: 'string', metavar: '<url>',
    group: 'Model Discovery', scope: 'both', built: true, default: 'https://huggingface.co',
    help: 'Hugging Face hub to fetch --model-path repositories from (a mirror or a private hub)',
  },
  {
    key: 'hfToken', env: 'HF_TOKEN', type: 'string', metavar: '<token>', secret: true,
    group: 'Model Discovery', scope: 'both', built: true,
    help: 'Hub access token for gated and private repositories (sent as a Bearer token); unset: the token saved in $HF_HOME/token, if any',
  },
  {
    key: 'hfHome', env: 'HF_HOME', type: 'path', metavar: '<dir>',
    group: 'Model Discovery', scope: 'both', built: true,
    help: 'Hugging Face home: the cache is its hub/ folder (default $XDG_CACHE_HOME/huggingface, else ~/.cache/huggingface)',
  },
  {
    key: 'hfHubCache', env: 'HF_HUB_CACHE', type: 'path', metavar: '<dir>',
    group: 'Model Discovery', scope: 'both', built: true,
    help: 'The hub cache folder itself (wins over HF_HOME)',
  },
  {
    key: 'hfHubOffline', env: 'HF_HUB_OFFLINE', type: 'bool', default: false,
    group: 'Model Discovery', scope: 'both', built: true,
    help: 'Never contact the hub: --model-path repositories come from the cache only, and a missing one fails startup',
  },
  {
    key: 'kvCacheBlockSize', flag: 'kv-cache-block-size', env: 'DYN_KV_CACHE_BLOCK_SIZE', type: 'int', min: 1,
    group: 'Model Discovery', scope: 'both', built: true,
    help: "KV cache block size override (frontend: instead of the workers' model card; mocker: wins over --block-size)",
  },
  {
    key: 'discoveryBackend', flag: 'discovery-backend', env: 'DYN_DISCOVERY_BACKEND', type: 'enum',
    choices: allBuilt(DISCOVERY_BACKEND_NAMES),
    group: 'Infrastructure', scope: 'both', built: true, default: 'etcd', commandDefaults: { serve: 'mem' },
    help: 'Service discovery backend; mem is in-process only, file needs every process on one host (DYN_FILE_KV), kubernetes watches DynamoWorkerMetadata CRs and EndpointSlices in the pod namespace',
  },
  {
    key: 'connectRetrySecs', env: 'DYN_CONNECT_RETRY_SECS', envIsLocal: true, type: 'int', min: 0,
    group: 'Infrastructure', scope: 'both', built: true, default: 0,
    help: 'At startup, keep retrying an unreachable etcd, NATS or Kubernetes API for this long (0: exit with code 1 at once, for a supervisor to restart)',
  },
  {
    key: 'kubeconfig', env: 'KUBECONFIG', type: 'string', metavar: '<paths>',
    group: 'Infrastructure', scope: 'both', built: true,
    help: 'kubeconfig files (separated like PATH) for --discovery-backend kubernetes; unset: ~/.kube/config, else the in-cluster service account',
  },
  {
    key: 'podName', env: 'POD_NAME', type: 'string', metavar: '<name>',
    group: 'Infrastructure', scope: 'both', built: true,
    help: 'This pod (kubernetes discovery; /etc/podinfo/pod_name wins): the DynamoWorkerMetadata name and, hashed, the instance id',
  },
  {
    key: 'podUid', env: 'POD_UID', type: 'string', metavar: '<uid>',
    group: 'Infrastructure', scope: 'both', built: true,
    help: "This pod's uid (kubernetes discovery; /etc/podinfo/pod_uid wins): the owner of its DynamoWorkerMetadata",
  },
  {
    key: 'podNamespace', env: 'POD_NAMESPACE', type: 'string', metavar: '<namespace>',
    group: 'Infrastructure', scope: 'both', built: true,
    help: "This pod's namespace (kubernetes discovery; /etc/podinfo/pod_namespace wins): the only one watched (default: default)",
  },
  {
    key: 'requestPlane', flag: 'request-plane', env: 'DYN_REQUEST_PLANE', type: 'enum',
    choices: allBuilt(REQUEST_PLANE_NAMES),
    removed: { http: "upstream removed the HTTP request plane (May 2026); use 'tcp' or 'nats'" },
    group: 'Infrastructure', scope: 'both', built: true, default: 'tcp', commandDefaults: { serve: 'inproc' },
    help: 'How requests reach workers; inproc (dynamo-ts only) calls engines in the same process. http, which upstream removed, is refused with that reason',
  },
  {
    key: 'responsePlane', flag: 'response-plane', env: 'DYN_RESPONSE_PLANE', type: 'enum',
    choices: { tcp: true, quic: false, inproc: true },
    group: 'Infrastructure', scope: 'both', built: true, default: 'tcp', commandDefaults: { serve: 'inproc' },
    notBuiltHint: QUIC_NEEDS,
    help: `How responses stream back from workers (must match the workers); inproc is dynamo-ts only. quic is refused: ${QUIC_NEEDS}`,
  },
  {
    key: 'eventPlane', flag: 'event-plane', env: 'DYN_EVENT_PLANE', type: 'enum',
    choices: allBuilt(EVENT_PLANE_NAMES),
    group: 'Infrastructure', scope: 'both', built: true, commandDefaults: { serve: 'inproc' },
    notBuiltHint: TRY_SERVE,
    help: 'How KV events and load metrics are published; unset means nats with etcd/kubernetes discovery, zmq otherwise (as upstream); inproc is dynamo-ts only',
  },
  {
    key: 'etcdEndpoints', env: 'ETCD_ENDPOINTS', type: 'string', metavar: '<urls>',
    group: 'Infrastructure', scope: 'both', built: true, default: 'http://localhost:2379',
    help: 'etcd endpoints (comma-separated) for --discovery-backend etcd',
  },
  {
    key: 'natsServer', env: 'NATS_SERVER', type: 'string', metavar: '<url>',
    group: 'Infrastructure', scope: 'both', built: true, default: 'nats://localhost:4222',
    help: 'NATS server URL (comma-separated for several) for the nats request and event planes',
  },
  {
    key: 'fileKv', env: 'DYN_FILE_KV', type: 'path', metavar: '<dir>',
    group: 'Infrastructure', scope: 'both', built: true,
    help: 'Directory shared by frontend and workers for --discovery-backend file (default: $TMPDIR/dynamo_store_kv)',
  },
  {
    key: 'tcpMaxMessageSize', env: 'DYN_TCP_MAX_MESSAGE_SIZE', type: 'int', min: 1024,
    group: 'Infrastructure', scope: 'both', built: true, default: 33554432,
    help: 'Largest TCP request-plane frame in bytes (32 MiB)',
  },
  {
    key: 'tcpRpcHost', env: 'DYN_TCP_RPC_HOST', envIsLocal: true, type: 'string', metavar: '<host>',
    group: 'Infrastructure', scope: 'both', built: true,
    help: 'Host this process\'s TCP listeners (request plane, response streams, ZMQ events) bind to and publish for workers and frontends to dial. Default with file or mem discovery, whose processes all share one host: 127.0.0.1, so nothing internal listens beyond loopback; with etcd or kubernetes: all interfaces, publishing the first non-loopback IPv4 address (a request plane without --tcp-tls-* then logs a warning)',
  },
  {
    key: 'etcdLeaseTtl', env: 'ETCD_LEASE_TTL', type: 'int', min: 0,
    group: 'Infrastructure', scope: 'both', built: true, default: 10,
    help: 'Discovery lease TTL in seconds: a worker that dies leaves routing within this time (0 falls back to 10 with a warning, as upstream). Upstream applies it to etcd only; dynamo-ts also to the file backend\'s leases',
  },
  {
    key: 'tcpTlsCertPath', flag: 'tcp-tls-cert-path', env: 'DYN_TCP_TLS_CERT_PATH', type: 'path', mustExist: true,
    group: 'Infrastructure', scope: 'both', built: true, help: 'TLS certificate (PEM) of this process\'s TCP request-plane listeners (workers: requests; frontends: response streams); with --tcp-tls-key-path turns TLS on for the TCP planes',
  },
  {
    key: 'tcpTlsKeyPath', flag: 'tcp-tls-key-path', env: 'DYN_TCP_TLS_KEY_PATH', type: 'path', mustExist: true,
    group: 'Infrastructure', scope: 'both', built: true, help: 'TLS private key (PEM) for --tcp-tls-cert-path',
  },
  {
    key: 'tcpTlsCaCertPath', flag: 'tcp-tls-ca-cert-path', env: 'DYN_TCP_TLS_CA_CERT_PATH', type: 'path', mustExist: true,
    group: 'Infrastructure', scope: 'both', built: true, help: 'CA bundle (PEM) that verifies the TCP request-plane listeners this process dials (system CAs when unset)',
  },
  {
    key: 'tcpTlsClientCertPath', flag: 'tcp-tls-client-cert-path', env: 'DYN_TCP_TLS_CLIENT_CERT_PATH', type: 'path', mustExist: true,
    group: 'Infrastructure', scope: 'both', built: true, help: 'Client certificate (PEM) presented when dialing TCP request-plane listeners (mTLS); with --tcp-tls-client-key-path',
  },
  {
    key: 'tcpTlsClientKeyPath', flag: 'tcp-tls-client-key-path', env: 'DYN_TCP_TLS_CLIENT_KEY_PATH', type: 'path', mustExist: true,
    group: 'Infrastructure', scope: 'both', built: true, help: 'Client private key (PEM) for --tcp-tls-client-cert-path',
  },
  {
    key: 'tcpTlsInsecure', flag: 'tcp-tls-insecure', env: 'DYN_TCP_TLS_INSECURE', type: 'bool',
    group: 'Infrastructure', scope: 'both', built: true, default: false,
    help: 'Dial TCP request-plane listeners without verifying their certificates (local development only; a warning is logged)',
  },
  {
    key: 'tcpTlsServerName', flag: 'tcp-tls-server-name', env: 'DYN_TCP_TLS_SERVER_NAME', type: 'string', metavar: '<name>',
    group: 'Infrastructure', scope: 'both', built: true,
    help: "Name sent (SNI) and verified when dialing TCP request-plane listeners, instead of the address dialed: e.g. listeners published by IP whose certificates name a DNS SAN",
  },
  {
    key: 'tcpTlsHandshakeTimeout', flag: 'tcp-tls-handshake-timeout', env: 'DYN_TCP_TLS_HANDSHAKE_TIMEOUT_SECS', type: 'int', min: 1, metavar: '<secs>',
    group: 'Infrastructure', scope: 'both', built: true, default: 3,
    help: 'Seconds a TLS handshake on the TCP planes may take, dialing or accepting; a peer that never finishes it fails the dial like a refused connection',
  },
  {
    key: 'tcpTlsClientCaCertPath', flag: 'tcp-tls-client-ca-cert-path', env: 'DYN_TCP_TLS_CLIENT_CA_CERT_PATH', type: 'path', mustExist: true,
    group: 'Infrastructure', scope: 'both', built: true, help: 'CA bundle (PEM): this process\'s TCP request-plane listeners require client certificates it signed (mTLS)',
  },
  {
    key: 'natsTlsCaCertPath', flag: 'nats-tls-ca-cert-path', env: 'NATS_TLS_CA_CERT_PATH', type: 'path', mustExist: true,
    group: 'Infrastructure', scope: 'both', built: true, help: 'CA bundle (PEM) that verifies the NATS server; makes every NATS connection TLS',
  },
  {
    key: 'natsTlsInsecure', flag: 'nats-tls-insecure', env: 'NATS_TLS_INSECURE', type: 'bool',
    group: 'Infrastructure', scope: 'both', built: true, default: false, help: 'TLS to NATS without verifying the server certificate (testing only)',
  },
  {
    key: 'natsTlsClientCertPath', flag: 'nats-tls-client-cert-path', env: 'NATS_TLS_CLIENT_CERT_PATH', type: 'path', mustExist: true,
    group: 'Infrastructure', scope: 'both', built: true, help: 'Client certificate (PEM) for NATS servers that verify clients; with --nats-tls-client-key-path',
  },
  {
    key: 'natsTlsClientKeyPath', flag: 'nats-tls-client-key-path', env: 'NATS_TLS_CLIENT_KEY_PATH', type: 'path', mustExist: true,
    group: 'Infrastructure', scope: 'both', built: true, help: 'Client private key (PEM) for --nats-tls-client-cert-path',
  },
] as const satisfies readonly OptionSpec[];
