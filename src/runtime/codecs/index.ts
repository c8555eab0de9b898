export { parseJsonLossless, stringifyJsonWithU64, asU64 } from './lossless-json.js';
export { decodeRouterEvent, encodeRouterEvent, decodeNatsEnvelope, encodeNatsEnvelope, type NatsEnvelope } from './router-event.js';
export { encodeTwoPart, encodeTwoPartHeader, encodeTwoPartBody, decodeTwoPart, TwoPartBatch, TwoPartDecoder, type TwoPartMessage } from './two-part.js';
export {
  encodeRequestFrame,
  requestFrameHead,
  RequestFrameDecoder,
  encodeAck,
  AckDecoder,
  isRejectionAck,
  PING_HEADER,
  PING_PATH,
  DEFAULT_TCP_MAX_MESSAGE_SIZE,
  type RequestFrame,
} from './tcp-frame.js';
export {
  buildRequestControl,
  parseRequestControl,
  parseStreamControl,
  parseStreamItemBody,
  streamItemJson,
  streamItemBodyJson,
  STREAM_END_JSON,
  type CallHomeInfo,
  type RequestControlMessage,
  type ParsedRequestControl,
  type StreamControl,
  type StreamItemBody,
} from './messages.js';
export { activeLoadFrom, encodeActiveLoad, decodeActiveLoad } from './active-load.js';
export { PAYLOAD_CODECS, PAYLOAD_CODEC_NAMES, MSGPACK_OPTIONS, isPayloadCodec, type BodyCodec, type PayloadCodec } from './payload-codecs.js';
