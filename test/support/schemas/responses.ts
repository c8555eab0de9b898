// The Responses API's Response object and streaming events as JSON Schema, written from OpenAI's API
// reference (the Response object, its output items, and the response.* events), with every field
// the reference marks as always present required, and `null` allowed only where the reference
// allows it. Tests validate real answers against it with ajv, as schema-validating clients do.

const nullable = (schema: Record<string, unknown>) => ({ anyOf: [schema, { type: 'null' }] });
const int = { type: 'integer' };
const str = { type: 'string' };
const num = { type: 'number' };
const bool = { type: 'boolean' };
const obj = { type: 'object' };

const outputText = {
  type: 'object',
  required: ['type', 'text', 'annotations', 'logprobs'],
  properties: { type: { const: 'output_text' }, text: str, annotations: { type: 'array' }, logprobs: { type: 'array' } },
};

const messageItem = {
  type: 'object',
  required: ['id', 'type', 'status', 'role', 'content'],
  properties: {
    id: str,
    type: { const: 'message' },
    status: { enum: ['in_progress', 'completed', 'incomplete'] },
    role: { const: 'assistant' },
    content: { type: 'array', items: outputText },
  },
};

const functionCallItem = {
  type: 'object',
  required: ['type', 'call_id', 'name', 'arguments'],
  properties: { id: str, type: { const: 'function_call' }, call_id: str, name: str, arguments: str, namespace: str, status: { enum: ['in_progress', 'completed', 'incomplete'] } },
};

const customToolCallItem = {
  type: 'object',
  required: ['type', 'call_id', 'name', 'input'],
  properties: { id: str, type: { const: 'custom_tool_call' }, call_id: str, name: str, input: str, namespace: str },
};

const reasoningItem = {
  type: 'object',
  required: ['id', 'type', 'summary'],
  properties: {
    id: str,
    type: { const: 'reasoning' },
    summary: { type: 'array', items: { type: 'object', required: ['type', 'text'], properties: { type: { const: 'summary_text' }, text: str } } },
    content: { type: 'array', items: { type: 'object', required: ['type', 'text'], properties: { type: { const: 'reasoning_text' }, text: str } } },
  },
};

const outputItem = { oneOf: [messageItem, functionCallItem, customToolCallItem, reasoningItem] };

const functionTool = {
  type: 'object',
  required: ['type', 'name', 'parameters', 'strict'],
  properties: { type: { const: 'function' }, name: str, description: nullable(str), parameters: nullable(obj), strict: nullable(bool) },
};

const usage = {
  type: 'object',
  required: ['input_tokens', 'input_tokens_details', 'output_tokens', 'output_tokens_details', 'total_tokens'],
  properties: {
    input_tokens: int,
    input_tokens_details: { type: 'object', required: ['cached_tokens'], properties: { cached_tokens: int } },
    output_tokens: int,
    output_tokens_details: { type: 'object', required: ['reasoning_tokens'], properties: { reasoning_tokens: int } },
    total_tokens: int,
  },
};

export const RESPONSE_SCHEMA = {
  type: 'object',
  required: [
    'id', 'object', 'created_at', 'completed_at', 'status', 'background', 'error', 'incomplete_details', 'instructions', 'model', 'output',
    'parallel_tool_calls', 'previous_response_id', 'reasoning', 'store', 'temperature', 'text', 'tool_choice', 'tools', 'top_p', 'truncation',
    'usage', 'user', 'metadata', 'max_output_tokens', 'max_tool_calls', 'top_logprobs', 'presence_penalty', 'frequency_penalty',
    'service_tier', 'safety_identifier', 'prompt_cache_key',
  ],
  properties: {
    id: { type: 'string', pattern: '^resp_' },
    object: { const: 'response' },
    created_at: int,
    completed_at: nullable(int),
    status: { enum: ['completed', 'failed', 'in_progress', 'cancelled', 'queued', 'incomplete'] },
    background: bool,
    error: nullable({ type: 'object', required: ['code', 'message'], properties: { code: str, message: str } }),
    incomplete_details: nullable({ type: 'object', required: ['reason'], properties: { reason: { enum: ['max_output_tokens', 'content_filter'] } } }),
    instructions: nullable({ anyOf: [str, { type: 'array' }] }),
    model: str,
    output: { type: 'array', items: outputItem },
    parallel_tool_calls: bool,
    previous_response_id: nullable(str),
    reasoning: nullable({ type: 'object', properties: { effort: nullable(str), summary: nullable(str) } }),
    store: bool,
    temperature: nullable(num),
    text: { type: 'object', required: ['format'], properties: { format: { type: 'object', required: ['type'] } } },
    tool_choice: { anyOf: [{ enum: ['none', 'auto', 'required'] }, obj] },
    tools: { type: 'array', items: { anyOf: [functionTool, { type: 'object', required: ['type'], properties: { type: { not: { const: 'function' } } } }] } },
    top_p: nullable(num),
    truncation: nullable({ enum: ['auto', 'disabled'] }),
    usage: nullable(usage),
    user: nullable(str),
    metadata: nullable({ type: 'object', additionalProperties: str }),
    max_output_tokens: nullable(int),
    max_tool_calls: nullable(int),
    top_logprobs: nullable(int),
    presence_penalty: num,
    frequency_penalty: num,
    service_tier: nullable({ enum: ['auto', 'default', 'flex', 'scale', 'priority'] }),
    safety_identifier: nullable(str),
    prompt_cache_key: nullable(str),
  },
};

/** Every streamed event: its type, a sequence number, and for the lifecycle events a whole Response. */
export const RESPONSE_EVENT_SCHEMA = {
  type: 'object',
  required: ['type', 'sequence_number'],
  properties: { type: { type: 'string', pattern: '^response\\.' }, sequence_number: int },
  allOf: [
    {
      if: { properties: { type: { enum: ['response.created', 'response.in_progress', 'response.completed', 'response.incomplete', 'response.failed'] } } },
      then: { required: ['response'], properties: { response: RESPONSE_SCHEMA } },
    },
    {
      if: { properties: { type: { enum: ['response.output_item.added', 'response.output_item.done'] } } },
      then: { required: ['output_index', 'item'], properties: { output_index: int } },
    },
    {
      if: { properties: { type: { enum: ['response.output_text.delta', 'response.reasoning_text.delta', 'response.function_call_arguments.delta', 'response.custom_tool_call_input.delta'] } } },
      then: { required: ['item_id', 'output_index', 'delta'], properties: { item_id: str, output_index: int, delta: str } },
    },
    {
      if: { properties: { type: { const: 'response.output_text.delta' } } },
      then: { required: ['content_index', 'logprobs'] },
    },
  ],
};
