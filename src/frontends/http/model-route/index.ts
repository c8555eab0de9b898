export { visitInWrittenOrder } from './delta-order.js';
export { answerSingleChoice, foldAll, generationSpec, openEventStream, outputParsers, prepareTranslatedChat, sendJson, streamGeneration, type AnswerEvents, type EventOut, type Generation, type GenerationRoute, type GenerationRouteOptions, type PerfLog, type PreparedGeneration, type TranslatedChat } from './generation-route.js';
export { modelRouteHandler, namedModel, onlyOutput, type ModelCall, type ModelRouteContext, type ModelRouteSpec } from './model-route.js';
