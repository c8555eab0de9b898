// How Triton's HTTP/REST routes appear in /openapi.json (KServe v2 REST, Triton's extensions).

import type { JsonSchema } from '../../../pipeline/index.js';
import { adminError, json, type ResponseDoc, type RouteDoc } from '../openapi/index.js';

const TAG = 'Triton (KServe v2)';

const MODEL_PARAMS: JsonSchema = {
  type: 'object',
  properties: {
    model: { type: 'string', description: 'the model name (URL-encode a `/` in it as %2F)' },
    version: { type: 'string', description: 'ignored: every model has version "1"' },
  },
};

const ERRORS = {
  400: adminError('Invalid request: the message names the field'),
  404: adminError('Unknown model'),
  503: adminError('No ready worker for the model, or the service is draining'),
};

const EMPTY_OK = (description: string): ResponseDoc => ({ description });

const TENSOR: JsonSchema = {
  type: 'object',
  required: ['name', 'datatype', 'shape'],
  properties: {
    name: { type: 'string' },
    datatype: { type: 'string', example: 'INT32', description: 'BOOL, UINT8…UINT64, INT8…INT64, FP16, BF16, FP32, FP64 or BYTES' },
    shape: { type: 'array', items: { type: 'integer' } },
    parameters: { type: 'object', additionalProperties: true, description: '`binary_data_size`: the tensor is binary data after the JSON part' },
    data: { description: 'row-major elements, flat or nested; BYTES as strings' },
  },
};

const INFER_BODY: JsonSchema = {
  type: 'object',
  required: ['inputs'],
  properties: {
    id: { type: 'string' },
    parameters: { type: 'object', additionalProperties: true, description: '`binary_data_output`: every output as binary data' },
    inputs: { type: 'array', items: TENSOR },
    outputs: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name'],
        properties: { name: { type: 'string' }, parameters: { type: 'object', additionalProperties: true, description: '`binary_data`: this output as binary data' } },
      },
    },
  },
};

const INFER_RESPONSE: JsonSchema = {
  type: 'object',
  properties: {
    model_name: { type: 'string' },
    model_version: { type: 'string' },
    id: { type: 'string' },
    parameters: { type: 'object', additionalProperties: true },
    outputs: { type: 'array', items: TENSOR },
  },
};

const GENERATE_BODY: JsonSchema = {
  type: 'object',
  description: "Keys naming one of the model's inputs are inputs; the others, and those under `parameters`, are request parameters.",
  properties: {
    id: { type: 'string' },
    text_input: { type: 'string' },
    stream: { type: 'boolean' },
    sampling_parameters: { description: 'a JSON object of sampling parameters, or its text' },
    exclude_input_in_output: { type: 'boolean' },
    parameters: { type: 'object', additionalProperties: true, example: { max_tokens: 64, temperature: 0 } },
  },
  additionalProperties: true,
};

const GENERATE_RESPONSE: JsonSchema = {
  type: 'object',
  properties: { model_name: { type: 'string' }, model_version: { type: 'string' }, text_output: { type: 'string' } },
  additionalProperties: true,
};

export const TRITON_DOCS = {
  live: { summary: 'Server liveness (200 or 400, empty body)', tag: TAG, responses: { 200: EMPTY_OK('Live'), 400: EMPTY_OK('Shutting down') } },
  ready: {
    summary: 'Server readiness: serving and at least one model has a ready worker (200 or 400, empty body)',
    tag: TAG,
    responses: { 200: EMPTY_OK('Ready'), 400: EMPTY_OK('Not ready') },
  },
  server: {
    summary: 'Server metadata: name, version, extensions',
    tag: TAG,
    responses: { 200: json('Server metadata', { type: 'object', properties: { name: { type: 'string' }, version: { type: 'string' }, extensions: { type: 'array', items: { type: 'string' } } } }) },
  },
  modelMetadata: {
    summary: 'Model metadata: versions, platform, inputs and outputs',
    tag: TAG,
    params: MODEL_PARAMS,
    responses: { 200: json('Model metadata'), 400: ERRORS[400], 404: ERRORS[404] },
  },
  modelReady: {
    summary: 'Model readiness (200 or 400, empty body)',
    tag: TAG,
    params: MODEL_PARAMS,
    responses: { 200: EMPTY_OK('Ready'), 400: EMPTY_OK('Unknown, unloaded, or no ready worker') },
  },
  modelConfig: {
    summary: "Model configuration (Triton's ModelConfig as JSON)",
    tag: TAG,
    params: MODEL_PARAMS,
    responses: { 200: json('Model configuration'), 400: ERRORS[400], 404: ERRORS[404] },
  },
  modelStats: {
    summary: 'Inference statistics of a model',
    tag: TAG,
    params: MODEL_PARAMS,
    responses: { 200: json('{"model_stats": [...]}'), 404: ERRORS[404] },
  },
  allStats: { summary: 'Inference statistics of every model', tag: TAG, responses: { 200: json('{"model_stats": [...]}') } },
  infer: {
    summary: 'Inference with JSON tensors, or JSON followed by binary data (Inference-Header-Content-Length)',
    tag: TAG,
    params: MODEL_PARAMS,
    body: INFER_BODY,
    responses: {
      200: {
        description: 'The outputs; with binary outputs the JSON part (its size in Inference-Header-Content-Length) is followed by their bytes',
        content: { 'application/json': INFER_RESPONSE, 'application/octet-stream': { type: 'string', format: 'binary' } },
      },
      ...ERRORS,
    },
  },
  generate: {
    summary: "Generate extension: one JSON answer (the vLLM backend's inputs)",
    tag: TAG,
    params: MODEL_PARAMS,
    body: GENERATE_BODY,
    responses: { 200: json('The outputs by name', GENERATE_RESPONSE), ...ERRORS },
  },
  generateStream: {
    summary: 'Generate extension, streamed as server-sent events',
    tag: TAG,
    params: MODEL_PARAMS,
    body: GENERATE_BODY,
    responses: {
      200: { description: '`data: <outputs JSON>` per response; an error mid-stream is `data: {"error": "..."}`', content: { 'text/event-stream': { type: 'string' } } },
      ...ERRORS,
    },
  },
  repositoryIndex: {
    summary: 'The model repository index',
    tag: TAG,
    body: { type: 'object', properties: { ready: { type: 'boolean', description: 'only models ready to serve' } } },
    responses: { 200: json('[{"name", "version", "state", "reason"}]', { type: 'array', items: { type: 'object', additionalProperties: true } }) },
  },
  load: {
    summary: 'Load (bring back) a model — admin route',
    tag: TAG,
    params: MODEL_PARAMS,
    responses: { 200: EMPTY_OK('Loaded'), 403: adminError('No API key configured and admin routes not enabled'), 404: ERRORS[404] },
  },
  unload: {
    summary: 'Unload a model — admin route',
    tag: TAG,
    params: MODEL_PARAMS,
    responses: { 200: EMPTY_OK('Unloaded'), 403: adminError('No API key configured and admin routes not enabled'), 404: ERRORS[404] },
  },
} satisfies Record<string, RouteDoc>;
