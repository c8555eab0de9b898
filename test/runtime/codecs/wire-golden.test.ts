// Golden bytes of the runtime wire formats (reference/upstream-wire.md §1-§4): pinned so that
// interoperability with upstream workers cannot drift silently.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  AckDecoder,
  buildRequestControl,
  decodeEndpointInstance,
  decodeModelRecord,
  decodeTwoPart,
  encodeAck,
  encodeEndpointInstance,
  encodeModelRecord,
  encodeRequestFrame,
  encodeTwoPart,
  encodeTwoPartHeader,
  instanceKey,
  isRejectionAck,
  modelKey,
  parseRequestControl,
  RequestFrameDecoder,
  STREAM_END_JSON,
  streamItemJson,
  TwoPartDecoder,
} from '../../../src/runtime/index.js';

const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex');
const ascii = (s: string) => Buffer.from(s, 'utf8').toString('hex');

test('two-part message: u64 header_len | u64 body_len | u64 checksum(0) | header | body, big-endian', () => {
  const bytes = encodeTwoPart('{"a":1}', 'hi');
  assert.deepEqual(bytes, hex(`0000000000000007 0000000000000002 0000000000000000 ${ascii('{"a":1}')} ${ascii('hi')}`));
  assert.deepEqual(decodeTwoPart(bytes), { header: Buffer.from('{"a":1}'), body: Buffer.from('hi') });
  // Header-only control frames, as the caller sends to cancel and the worker sends to close.
  assert.deepEqual(encodeTwoPartHeader('stop'), hex(`0000000000000006 0000000000000000 0000000000000000 ${ascii('"stop"')}`));
  assert.deepEqual(encodeTwoPartHeader('sentinel'), hex(`000000000000000a 0000000000000000 0000000000000000 ${ascii('"sentinel"')}`));
});

test('two-part stream decoder reassembles messages split at any byte', () => {
  const stream = Buffer.concat([encodeTwoPartHeader({ error: null }), encodeTwoPart(null, streamItemJson('{"data":{"token_ids":[7]}}')), encodeTwoPart(null, STREAM_END_JSON)]);
  const decoder = new TwoPartDecoder();
  const got = [];
  for (let i = 0; i < stream.length; i += 5) got.push(...decoder.push(stream.subarray(i, i + 5)));
  assert.deepEqual(
    got.map((m) => [m.header.toString(), m.body.toString()]),
    [
      ['{"error":null}', ''],
      ['', '{"data":{"data":{"token_ids":[7]}},"complete_final":false}'],
      ['', '{"complete_final":true}'],
    ],
  );
});

test('request frame: u16 path_len | path | u16 headers_len | headers | u32 payload_len | payload', () => {
  const frame = encodeRequestFrame('1f41a2019b64b506/generate', { 'x-endpoint-path': '1f41a2019b64b506/generate' }, Buffer.from('xyz'));
  const headers = '{"x-endpoint-path":"1f41a2019b64b506/generate"}';
  assert.deepEqual(
    frame,
    hex(`0019 ${ascii('1f41a2019b64b506/generate')} ${(headers.length).toString(16).padStart(4, '0')} ${ascii(headers)} 00000003 ${ascii('xyz')}`),
  );
  const decoder = new RequestFrameDecoder();
  const two = Buffer.concat([frame, frame]);
  const frames = [...decoder.push(two.subarray(0, 10)), ...decoder.push(two.subarray(10))];
  assert.equal(frames.length, 2);
  assert.equal(frames[1]!.path, '1f41a2019b64b506/generate');
  assert.deepEqual(frames[1]!.headers, { 'x-endpoint-path': '1f41a2019b64b506/generate' });
  assert.deepEqual(frames[1]!.payload, Buffer.from('xyz'));
});

test('request frames above DYN_TCP_MAX_MESSAGE_SIZE are refused', () => {
  const decoder = new RequestFrameDecoder(64);
  assert.throws(() => decoder.push(encodeRequestFrame('a/b', {}, Buffer.alloc(100))), /DYN_TCP_MAX_MESSAGE_SIZE/);
});

test('ack: u32 len | text; empty accepts, "Server unavailable:" rejects', () => {
  assert.deepEqual(encodeAck(), hex('00000000'));
  assert.deepEqual(encodeAck('Server unavailable: draining'), hex(`0000001c ${ascii('Server unavailable: draining')}`));
  const acks = new AckDecoder().push(Buffer.concat([encodeAck(), encodeAck('Server unavailable: x')]));
  assert.deepEqual(acks, ['', 'Server unavailable: x']);
  assert.equal(isRejectionAck(acks[0]!), false);
  assert.equal(isRejectionAck(acks[1]!), true);
  assert.equal(isRejectionAck('Server overloaded: busy'), true);
});

test('request control message carries the call-home info as a JSON string', () => {
  const control = buildRequestControl('req-1', 'json', { address: '10.0.0.1:4000', subject: 's-1', context: 'req-1', stream_type: 'response' });
  assert.equal(
    JSON.stringify(control),
    '{"id":"req-1","request_type":"single_in","response_type":"many_out","payload_codec":"json","connection_info":{"transport":"tcp_server","info":"{\\"address\\":\\"10.0.0.1:4000\\",\\"subject\\":\\"s-1\\",\\"context\\":\\"req-1\\",\\"stream_type\\":\\"response\\"}"}}',
  );
  const parsed = parseRequestControl(Buffer.from(JSON.stringify(control)));
  assert.equal(parsed.callHome.address, '10.0.0.1:4000');
  assert.equal(parsed.codec, 'json');
  // Older callers omit payload_codec: json.
  const { payload_codec: _omit, ...old } = control;
  assert.equal(parseRequestControl(Buffer.from(JSON.stringify(old))).codec, 'json');
});

test('request metadata travels as the control message metadata map, omitted when empty', () => {
  const callHome = { address: '10.0.0.1:4000', subject: 's-1', context: 'req-1', stream_type: 'response' } as const;
  const control = buildRequestControl('req-1', 'msgpack', callHome, { tenant: 'acme', 'trace-id': 'abc' });
  assert.equal(
    JSON.stringify(control),
    '{"id":"req-1","request_type":"single_in","response_type":"many_out","payload_codec":"msgpack","connection_info":{"transport":"tcp_server","info":"{\\"address\\":\\"10.0.0.1:4000\\",\\"subject\\":\\"s-1\\",\\"context\\":\\"req-1\\",\\"stream_type\\":\\"response\\"}"},"metadata":{"tenant":"acme","trace-id":"abc"}}',
  );
  assert.deepEqual(parseRequestControl(Buffer.from(JSON.stringify(control))).metadata, { tenant: 'acme', 'trace-id': 'abc' });
  assert.equal('metadata' in buildRequestControl('req-1', 'json', callHome, {}), false);
  assert.equal(parseRequestControl(Buffer.from(JSON.stringify(buildRequestControl('req-1', 'json', callHome)))).metadata, undefined);
  // Only string values are taken from a peer's map.
  const odd = { ...buildRequestControl('req-1', 'json', callHome), metadata: { a: 'x', b: 1, c: null } };
  assert.deepEqual(parseRequestControl(Buffer.from(JSON.stringify(odd))).metadata, { a: 'x' });
});

const ENDPOINT_VALUE =
  '{"type":"Endpoint","component":"backend","endpoint":"generate","namespace":"dynamo","instance_id":2252259416447694086,"transport":{"tcp":"127.0.0.1:33379/1f41a2019b64b506/generate"},"request_plane_codec":"json"}';

test('etcd endpoint value matches the reference byte for byte, and its u64 id survives', () => {
  const ep = { namespace: 'dynamo', component: 'backend', endpoint: 'generate' };
  const id = 2252259416447694086n;
  assert.equal(instanceKey(ep, id), 'v1/instances/dynamo/backend/generate/1f41a2019b64b506');
  const value = encodeEndpointInstance({ ...ep, instanceId: id, transport: { tcp: '127.0.0.1:33379/1f41a2019b64b506/generate' }, requestPlaneCodec: 'json' });
  assert.equal(value, ENDPOINT_VALUE);
  const back = decodeEndpointInstance(instanceKey(ep, id), value)!;
  assert.equal(back.instanceId, id);
  assert.deepEqual(back.transport, { tcp: '127.0.0.1:33379/1f41a2019b64b506/generate' });
  // A value without request_plane_codec (older workers) means json; device_type is ignored.
  const older = decodeEndpointInstance('v1/instances/dynamo/backend/generate/1f41a2019b64b506', ENDPOINT_VALUE.replace(',"request_plane_codec":"json"', ',"device_type":"cuda"'))!;
  assert.equal(older.requestPlaneCodec, 'json');
});

test('etcd model value: card_json inside, model_suffix only for LoRA', () => {
  const ep = { namespace: 'dynamo', component: 'backend', endpoint: 'generate' };
  const id = 0x7fffffffffffffffn;
  assert.equal(modelKey(ep, id), 'v1/mdc/dynamo/backend/generate/7fffffffffffffff');
  assert.equal(modelKey(ep, id, 'my-lora'), 'v1/mdc/dynamo/backend/generate/7fffffffffffffff/my-lora');
  const value = encodeModelRecord({ ...ep, instanceId: id, cardJson: { display_name: 'm', kv_cache_block_size: 16 } });
  assert.equal(
    value,
    '{"type":"Model","namespace":"dynamo","component":"backend","endpoint":"generate","instance_id":9223372036854775807,"card_json":{"display_name":"m","kv_cache_block_size":16}}',
  );
  const back = decodeModelRecord(modelKey(ep, id), value)!;
  assert.equal(back.instanceId, id);
  assert.equal(back.modelSuffix, undefined);
  // Older workers wrote model_suffix: null.
  assert.equal(decodeModelRecord(modelKey(ep, id), value.replace('}}', '},"model_suffix":null}'))!.modelSuffix, undefined);
});
