// The skeleton every model route runs on (model-route.ts), what generating routes share around the
// pipeline (generation-route.ts: fan-out behind the pre-commit peek, folding, streaming) and the
// order a delta's pieces were written in.
export { visitInWrittenOrder } from './delta-order.js';
// A call that comes by another transport than an HTTP reply (a Responses WebSocket event) opens here.
export { openModelCall, type CallOrigin, type CallSpec } from './model-route.js';
export {
  answerSingleChoice,
  foldAll,
  foldAndAnswer,
  generatingRoute,
  generationSpec,
  openEventStream,
  outputParsers,
  prepareTranslatedChat,
  promptTokensOf,
  sendJson,
  startGeneration,
  streamGeneration,
  streamSingleChoice,
  type AnswerEvents,
  type ClosableOut,
  type EventOut,
  type Generation,
  type GenerationRoute,
  type GenerationRouteOptions,
  type PerfLog,
  type PreparedGeneration,
  type TranslatedChat,
} from './generation-route.js';
export { inClientTerms, noteOrigin } from './message-origins.js';
export { modelRoute, modelRouteHandler, namedModel, onlyOutput, type ModelCall, type ModelRouteContext, type ModelRouteSpec } from './model-route.js';
