import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadDefaultModelCard, type ModelDeploymentCard } from '../../../src/models/index.js';
import { ChatTemplate } from '../../../src/pipeline/preprocess/index.js';
import { ValidationError, type ChatCompletionRequest } from '../../../src/protocols/index.js';

const qwen = new ChatTemplate(loadDefaultModelCard());

function chat(extra: Partial<ChatCompletionRequest>): ChatCompletionRequest {
  return { model: 'm', messages: [{ role: 'user', content: 'hi' }], ...extra };
}

function cardWith(templates: Record<string, string>): ModelDeploymentCard {
  return { ...loadDefaultModelCard(), bosToken: '<s>', chatTemplates: templates };
}

const weatherTool = {
  type: 'function' as const,
  function: { name: 'get_weather', description: 'Weather now', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
};

describe('Qwen3 chat template', () => {
  it('renders system, user and the generation prompt', () => {
    const text = qwen.render(chat({ messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'hi' }] }));
    assert.equal(text, '<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n');
  });

  it('ends with an empty think block when chat_template_args.enable_thinking is false', () => {
    const viaArgs = qwen.render(chat({ chat_template_args: { enable_thinking: false } }));
    assert.ok(viaArgs.endsWith('<|im_start|>assistant\n<think>\n\n</think>\n\n'));
    const plain = qwen.render(chat({}));
    assert.ok(plain.endsWith('<|im_start|>assistant\n'));
  });

  it('omits the generation prompt when add_generation_prompt is false', () => {
    assert.equal(qwen.render(chat({ add_generation_prompt: false })), '<|im_start|>user\nhi<|im_end|>\n');
  });

  it('continue_final_message ends the prompt inside the last assistant message', () => {
    const text = qwen.render(
      chat({
        messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'Hello the' }],
        add_generation_prompt: false,
        continue_final_message: true,
      }),
    );
    assert.ok(text.endsWith('Hello the'), text);
    assert.ok(!text.endsWith('<|im_end|>\n'));
  });

  it('flattens text-only content parts with newlines', () => {
    const text = qwen.render(chat({ messages: [{ role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] }] }));
    assert.ok(text.includes('<|im_start|>user\na\nb<|im_end|>'));
  });

  it('renders tools with normalised parameters', () => {
    const noParams = { type: 'function' as const, function: { name: 'ping' } };
    const text = qwen.render(chat({ tools: [weatherTool, noParams] }));
    assert.ok(text.startsWith('<|im_start|>system\n# Tools'));
    assert.ok(text.includes('{"type": "function", "function": {"name": "get_weather", "description": "Weather now", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}'));
    assert.ok(text.includes('{"type": "function", "function": {"name": "ping", "parameters": {"type": "object", "properties": {}}}}'));
  });

  it('drops tools when tool_choice is "none" (unless told not to)', () => {
    assert.ok(!qwen.render(chat({ tools: [weatherTool], tool_choice: 'none' })).includes('# Tools'));
    const keep = new ChatTemplate(loadDefaultModelCard(), { excludeToolsWhenToolChoiceNone: false });
    assert.ok(keep.render(chat({ tools: [weatherTool], tool_choice: 'none' })).includes('# Tools'));
  });

  it('renders assistant tool calls (arguments as a mapping) and tool results', () => {
    const text = qwen.render(
      chat({
        tools: [weatherTool],
        messages: [
          { role: 'user', content: 'Weather in Paris?' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
          },
          { role: 'tool', tool_call_id: 'c1', content: 'sunny' },
        ],
      }),
    );
    assert.ok(text.includes('<|im_start|>assistant\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call><|im_end|>'), text);
    assert.ok(text.includes('<|im_start|>user\n<tool_response>\nsunny\n</tool_response><|im_end|>\n'));
    assert.ok(text.endsWith('<|im_start|>assistant\n'));
  });
});

describe('template selection and errors', () => {
  it('uses tool_use when tools are present and default otherwise', () => {
    const t = new ChatTemplate(cardWith({ default: 'D{{ bos_token }}', tool_use: 'T{{ tools | length }}' }));
    assert.equal(t.render(chat({})), 'D<s>');
    assert.equal(t.render(chat({ tools: [weatherTool] })), 'T1');
  });

  it('raise_exception becomes a 400 carrying the message', () => {
    const t = new ChatTemplate(cardWith({ default: "{{ raise_exception('Conversation roles must alternate') }}" }));
    assert.throws(
      () => t.render(chat({})),
      (err: unknown) => err instanceof ValidationError && err.httpStatus === 400 && err.message.includes('Conversation roles must alternate'),
    );
  });

  it('a template that does not compile is a 400', () => {
    const t = new ChatTemplate(cardWith({ default: '{{ foo( }}' }));
    assert.throws(() => t.render(chat({})), (err: unknown) => err instanceof ValidationError && err.httpStatus === 400);
  });

  it('a model without a template cannot serve chat', () => {
    assert.throws(() => new ChatTemplate(cardWith({})).render(chat({})), /has no chat template/);
  });

  it('trims blocks and strips leading block whitespace, as HF templates expect', () => {
    const t = new ChatTemplate(cardWith({ default: '{% for m in messages %}\n  {% if true %}\n[{{ m.content }}]\n  {% endif %}\n{% endfor %}\n' }));
    assert.equal(t.render(chat({})), '[hi]\n');
  });

  it('chat_template_args override the context and strftime_now works', () => {
    const t = new ChatTemplate(cardWith({ default: '{{ add_generation_prompt }} {{ strftime_now("%Y") | length }} {{ custom }}' }));
    assert.equal(t.render(chat({ chat_template_args: { add_generation_prompt: 'x', custom: 'y' } })), 'x 4 y');
  });
});
