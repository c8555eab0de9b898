// What discovery stores (reference/upstream-wire.md §1): endpoint instances under `v1/instances/`,
// model cards under `v1/mdc/`, ZMQ event channels under `v1/event_channels/`. Values are compact
// JSON with fields in upstream's order; instance ids are u64 and written as bare numbers.
import { asU64, isPayloadCodec, parseJsonLossless, stringifyJsonWithU64, type PayloadCodec } from '../codecs/index.js';
import { instanceIdHex, parseInstanceIdHex } from '../ids.js';

export interface EndpointId {
  namespace: string;
  component: string;
  endpoint: string;
}

/** How to reach an instance. `inproc` is dynamo-ts only (same process). */
export type Transport = { tcp: string } | { nats_tcp: string } | { http: string } | { inproc: string };

export interface EndpointInstance extends EndpointId {
  instanceId: bigint;
  transport: Transport;
  /** Absent means json. */
  requestPlaneCodec: PayloadCodec;
  /** Newer workers publish it; absent means an accelerator. */
  deviceType?: 'cpu' | 'cuda';
}

export interface ModelRecord extends EndpointId {
  instanceId: bigint;
  /** The upstream `card_json`, as sent. */
  cardJson: Record<string, unknown>;
  /** LoRA adapters only. */
  modelSuffix?: string;
}

export interface EventChannelRecord {
  /** `namespace.{ns}` or `namespace.{ns}.component.{c}`. */
  scope: string;
  topic: string;
  instanceId: bigint;
  /** ZMQ endpoint of the publisher, e.g. `tcp://10.0.0.5:41234`. */
  endpoint: string;
}

export const INSTANCES_BUCKET = 'v1/instances';
export const MODELS_BUCKET = 'v1/mdc';
export const EVENT_CHANNELS_BUCKET = 'v1/event_channels';

export function endpointPath(ep: EndpointId): string {
  return `${ep.namespace}/${ep.component}/${ep.endpoint}`;
}

export function instanceKey(ep: EndpointId, id: bigint): string {
  return `${INSTANCES_BUCKET}/${endpointPath(ep)}/${instanceIdHex(id)}`;
}

export function modelKey(ep: EndpointId, id: bigint, modelSuffix?: string): string {
  const base = `${MODELS_BUCKET}/${endpointPath(ep)}/${instanceIdHex(id)}`;
  return modelSuffix ? `${base}/${modelSuffix}` : base;
}

export function eventChannelKey(scope: string, topic: string, id: bigint): string {
  return `${EVENT_CHANNELS_BUCKET}/${scope}/topic/${topic}/${instanceIdHex(id)}`;
}

export function encodeEndpointInstance(inst: EndpointInstance): string {
  return stringifyJsonWithU64({
    type: 'Endpoint',
    component: inst.component,
    endpoint: inst.endpoint,
    namespace: inst.namespace,
    instance_id: inst.instanceId,
    transport: inst.transport,
    request_plane_codec: inst.requestPlaneCodec,
    ...(inst.deviceType ? { device_type: inst.deviceType } : {}),
  });
}

export function encodeModelRecord(rec: ModelRecord): string {
  return stringifyJsonWithU64({
    type: 'Model',
    namespace: rec.namespace,
    component: rec.component,
    endpoint: rec.endpoint,
    instance_id: rec.instanceId,
    card_json: rec.cardJson,
    ...(rec.modelSuffix ? { model_suffix: rec.modelSuffix } : {}),
  });
}

export function encodeEventChannel(rec: EventChannelRecord): string {
  return stringifyJsonWithU64({
    type: 'EventChannel',
    scope: rec.scope,
    topic: rec.topic,
    instance_id: rec.instanceId,
    transport: { zmq: rec.endpoint },
  });
}

/**
 * The instance id of a record: its value's `instance_id` read losslessly, else the key's hex suffix
 * segment (the 4th after the bucket). Null when neither is usable.
 */
function recordInstanceId(value: Record<string, unknown>, key: string, segment: number): bigint | null {
  return asU64(value.instance_id) ?? parseInstanceIdHex(key.split('/')[segment] ?? '');
}

function parseObject(text: string): Record<string, unknown> | null {
  try {
    const v = parseJsonLossless(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Null for values that are not an Endpoint record (logged by the caller). */
export function decodeEndpointInstance(key: string, text: string): EndpointInstance | null {
  const v = parseObject(text);
  if (!v || v.type !== 'Endpoint') return null;
  const id = recordInstanceId(v, key, 5);
  const transport = v.transport as Transport | undefined;
  if (id === null || !transport || typeof transport !== 'object') return null;
  const codec = isPayloadCodec(v.request_plane_codec) ? v.request_plane_codec : 'json';
  return {
    namespace: String(v.namespace),
    component: String(v.component),
    endpoint: String(v.endpoint),
    instanceId: id,
    transport,
    requestPlaneCodec: codec,
    ...(v.device_type === 'cpu' || v.device_type === 'cuda' ? { deviceType: v.device_type } : {}),
  };
}

export function decodeModelRecord(key: string, text: string): ModelRecord | null {
  const v = parseObject(text);
  if (!v || v.type !== 'Model') return null;
  const id = recordInstanceId(v, key, 5);
  const card = v.card_json;
  if (id === null || !card || typeof card !== 'object') return null;
  return {
    namespace: String(v.namespace),
    component: String(v.component),
    endpoint: String(v.endpoint),
    instanceId: id,
    cardJson: card as Record<string, unknown>,
    ...(typeof v.model_suffix === 'string' && v.model_suffix ? { modelSuffix: v.model_suffix } : {}),
  };
}

export function decodeEventChannel(key: string, text: string): EventChannelRecord | null {
  const v = parseObject(text);
  if (!v || v.type !== 'EventChannel') return null;
  const transport = v.transport as { zmq?: unknown } | undefined;
  const id = asU64(v.instance_id) ?? parseInstanceIdHex(key.slice(key.lastIndexOf('/') + 1));
  if (id === null || typeof transport?.zmq !== 'string') return null;
  return { scope: String(v.scope), topic: String(v.topic), instanceId: id, endpoint: transport.zmq };
}
