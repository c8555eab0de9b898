// Message shapes for checking the compiled chat-template renderer against @huggingface/jinja,
// built the way ChatTemplate builds a render context (text content flattened, tool-call
// arguments parsed into mappings, tools with an object `parameters` schema).

const WEATHER_TOOL = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Current weather for a city.',
    parameters: {
      type: 'object',
      properties: {
        city: { type: 'string', description: 'City name, e.g. "Paris"' },
        unit: { type: 'string', enum: ['celsius', 'fahrenheit'], default: 'celsius' },
        days: { type: 'integer', description: 'Forecast days' },
      },
      required: ['city'],
    },
  },
};

const SEARCH_TOOL = {
  type: 'function',
  function: {
    name: 'search',
    description: 'Search the web.',
    parameters: {
      type: 'object',
      properties: {
        query: { type: 'string' },
        filters: { type: 'array', items: { type: 'string' } },
        options: {
          type: 'object',
          properties: { safe: { type: 'boolean' }, limit: { type: 'number' } },
          required: ['safe'],
        },
        mode: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
      },
      required: ['query'],
    },
  },
};

const NO_PARAMS_TOOL = {
  type: 'function',
  function: { name: 'now', description: 'The time.', parameters: { type: 'object', properties: {} } },
};

const SYSTEM = { role: 'system', content: 'You are a helpful assistant.' };
const USER = { role: 'user', content: 'Hello, how are you?' };

const TOOL_CALL_TURN = [
  SYSTEM,
  { role: 'user', content: 'Weather in Paris and Rome?' },
  {
    role: 'assistant',
    content: '',
    tool_calls: [
      { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: { city: 'Paris' } } },
      { id: 'call_2', type: 'function', function: { name: 'get_weather', arguments: { city: 'Rome', unit: 'celsius' } } },
    ],
  },
  { role: 'tool', tool_call_id: 'call_1', name: 'get_weather', content: '{"temp": 21}' },
  { role: 'tool', tool_call_id: 'call_2', name: 'get_weather', content: '{"temp": 25}' },
];

export interface TemplateCase {
  name: string;
  context: Record<string, unknown>;
}

function ctx(messages: unknown[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { messages, tools: null, tool_choice: null, add_generation_prompt: true, ...extra };
}

/** Every case is rendered with every corpus template, with that template's special tokens. */
export const TEMPLATE_CASES: TemplateCase[] = [
  { name: 'one user message', context: ctx([USER]) },
  { name: 'system + user', context: ctx([SYSTEM, USER]) },
  { name: 'no generation prompt', context: ctx([SYSTEM, USER], { add_generation_prompt: false }) },
  {
    name: 'multi-turn',
    context: ctx([
      SYSTEM,
      USER,
      { role: 'assistant', content: 'Fine, thanks! And you?' },
      { role: 'user', content: 'Great.\nTell me a joke about "quotes" & <tags>.' },
    ]),
  },
  {
    name: 'final assistant, no generation prompt',
    context: ctx([USER, { role: 'assistant', content: 'Sure: ' }], { add_generation_prompt: false }),
  },
  { name: 'tools', context: ctx([SYSTEM, { role: 'user', content: 'Weather in Paris?' }], { tools: [WEATHER_TOOL, SEARCH_TOOL, NO_PARAMS_TOOL] }) },
  { name: 'tools, no system', context: ctx([{ role: 'user', content: 'Find cats' }], { tools: [SEARCH_TOOL], tool_choice: 'auto' }) },
  { name: 'tool calls and results', context: ctx(TOOL_CALL_TURN, { tools: [WEATHER_TOOL] }) },
  {
    name: 'tool calls then answer',
    context: ctx([...TOOL_CALL_TURN, { role: 'assistant', content: 'Paris 21, Rome 25.' }, { role: 'user', content: 'Thanks' }], {
      tools: [WEATHER_TOOL],
    }),
  },
  {
    name: 'reasoning content',
    context: ctx([
      USER,
      { role: 'assistant', content: 'I am fine.', reasoning_content: 'The user greets me.' },
      { role: 'user', content: 'Why?' },
    ]),
  },
  {
    name: 'think tags in history',
    context: ctx([USER, { role: 'assistant', content: '<think>\nhmm\n</think>\n\nI am fine.' }, { role: 'user', content: 'ok' }]),
  },
  { name: 'enable_thinking false', context: ctx([SYSTEM, USER], { enable_thinking: false }) },
  { name: 'enable_thinking true', context: ctx([USER], { enable_thinking: true }) },
  { name: 'reasoning effort', context: ctx([{ role: 'developer', content: 'Be brief.' }, USER], { reasoning_effort: 'high' }) },
  { name: 'thinking field', context: ctx([USER, { role: 'assistant', content: 'Hi.', thinking: 'Greeting.' }, { role: 'user', content: 'Again' }]) },
  { name: 'unicode', context: ctx([{ role: 'user', content: 'Grüße 你好 🙂 — “quotes”' }]) },
  { name: 'whitespace content', context: ctx([{ role: 'user', content: '  padded  \n\n' }]) },
  { name: 'empty content', context: ctx([{ role: 'user', content: '' }]) },
  {
    name: 'content parts',
    context: ctx([{ role: 'user', content: [{ type: 'text', text: 'Describe' }, { type: 'image_url', image_url: { url: 'data:,' } }] }]),
  },
  { name: 'two user messages in a row', context: ctx([USER, { role: 'user', content: 'Hello?' }]) },
  { name: 'assistant first', context: ctx([{ role: 'assistant', content: 'Hi' }, USER]) },
  { name: 'no messages', context: ctx([]) },
  {
    name: 'long conversation',
    context: ctx(
      Array.from({ length: 12 }, (_, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content: `turn ${i}` })),
    ),
  },
];
