// WebSocket mode of the Responses API: `response.create` events over one connection, answered with
// the events of a streamed POST, continuations served from the connection's last responses.
export { DEFAULT_RESPONSES_SOCKET, registerResponsesSocket, type ResponsesSocketOptions } from './socket-route.js';
