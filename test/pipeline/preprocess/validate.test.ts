import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validateChatRequest, validateCompletionRequest, type ValidationOptions } from '../../../src/pipeline/preprocess/index.js';
import { DynamoError } from '../../../src/protocols/index.js';

const user = [{ role: 'user', content: 'hi' }];

function chatError(extra: Record<string, unknown>, opts?: ValidationOptions): DynamoError {
  return errorOf(() => validateChatRequest({ model: 'm', messages: user, ...extra }, opts));
}

function completionError(extra: Record<string, unknown>, opts?: ValidationOptions): DynamoError {
  return errorOf(() => validateCompletionRequest({ model: 'm', prompt: 'hi', ...extra }, opts));
}

function errorOf(fn: () => unknown): DynamoError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof DynamoError, `not a DynamoError: ${String(err)}`);
    return err;
  }
  assert.fail('expected a validation error');
}

function expect400(err: DynamoError, message: string): void {
  assert.equal(err.httpStatus, 400);
  assert.equal(err.message, message);
}

const tool = (name: string, parameters?: unknown) => ({ type: 'function', function: { name, parameters } });

describe('chat validation: sampling and length (§5.1)', () => {
  const cases: [Record<string, unknown>, string][] = [
    [{ temperature: 3 }, 'Validation: Temperature must be between 0 and 2, got 3'],
    [{ temperature: -0.5 }, 'Validation: Temperature must be between 0 and 2, got -0.5'],
    [{ top_p: 0 }, 'Validation: Top_p must be between 0 and 1, got 0'],
    [{ top_p: 1.5 }, 'Validation: Top_p must be between 0 and 1, got 1.5'],
    [{ min_p: 2 }, 'Validation: Min_p must be between 0 and 1, got 2'],
    [{ top_k: -2 }, 'Validation: Top_k must be null or greater than or equal to -1'],
    [{ frequency_penalty: 2.5 }, 'Validation: Frequency penalty must be between -2 and 2, got 2.5'],
    [{ presence_penalty: -3 }, 'Validation: Presence penalty must be between -2 and 2, got -3'],
    [{ repetition_penalty: 0 }, 'Validation: Repetition penalty must be between 0 and 2, got 0'],
    [{ logit_bias: { '50256': 101 } }, "Validation: Logit bias for token '50256' must be between -100 and 100, got 101"],
    [{ logit_bias: { '7': 'x' } }, 'Validation: Logit bias value for token \'7\' must be a number, got String("x")'],
    [{ n: 0 }, 'Validation: n must be between 1 and 128, got 0'],
    [{ n: 129 }, 'Validation: n must be between 1 and 128, got 129'],
    [{ n: 2, temperature: 0 }, 'Validation: When n > 1, temperature must be greater than 0 to ensure diverse outputs. Got n=2, temperature=0'],
    [{ max_tokens: 0 }, 'Validation: Max tokens must be greater than 0, got 0'],
    [{ max_tokens: 1_048_577 }, 'Validation: Max tokens must not exceed 1048576, got 1048577'],
    [{ max_completion_tokens: 0 }, 'Validation: Max completion tokens must be greater than 0, got 0'],
    [{ max_completion_tokens: 2_000_000 }, 'Validation: Max completion tokens must not exceed 1048576, got 2000000'],
    [{ top_logprobs: 21 }, 'Validation: Top_logprobs must be between 0 and 20, got 21'],
    [{ model: '  ' }, 'Validation: Model cannot be empty'],
    [{ user: ' ' }, 'Validation: User ID cannot be empty'],
    [{ stop: '' }, 'Validation: Stop sequence cannot be empty'],
    [{ stop: [] }, 'Validation: Stop sequences array cannot be empty'],
    [{ stop: Array.from({ length: 33 }, (_, i) => `s${i}`) }, 'Validation: Maximum of 32 stop sequences allowed, got 33'],
    [{ stop: ['a', ''] }, 'Validation: Stop sequence at index 1 cannot be empty'],
    [{ stop: Array.from({ length: 33 }, (_, i) => i) }, 'Validation: Maximum of 32 stop token IDs allowed, got 33'],
  ];
  for (const [extra, message] of cases) {
    it(message, () => expect400(chatError(extra), message));
  }

  it('honours the configured max output tokens', () => {
    expect400(chatError({ max_tokens: 101 }, { maxOutputTokens: 100 }), 'Validation: Max tokens must not exceed 100, got 101');
  });

  it('accepts the edges', () => {
    validateChatRequest({
      model: 'm',
      messages: user,
      temperature: 2,
      top_p: 1,
      top_k: -1,
      min_p: 0,
      n: 128,
      max_tokens: 1_048_576,
      logit_bias: { '1': -100 },
      stop: ['x'],
    });
  });
});

describe('chat validation: messages and tools (§5.2)', () => {
  it('empty messages', () => {
    expect400(chatError({ messages: [] }), "Validation: The 'messages' field cannot be empty. At least one message is required.");
  });

  it('empty tool_call_id', () => {
    expect400(
      chatError({ messages: [...user, { role: 'tool', tool_call_id: ' ', content: 'x' }] }),
      'Validation: `messages[1].tool_call_id` cannot be empty',
    );
  });

  it('tool-call arguments must be a JSON object string', () => {
    const call = (args: string) => ({
      messages: [...user, { role: 'assistant', content: null, tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: args } }] }],
    });
    expect400(chatError(call('[1]')), 'Validation: `messages[1].tool_calls[0].function.arguments` must be a valid JSON object string');
    const err = chatError(call('{nope'));
    assert.equal(err.httpStatus, 400);
    assert.ok(err.message.startsWith('Validation: `messages[1].tool_calls[0].function.arguments` must be a valid JSON object string: '));
    validateChatRequest({ model: 'm', ...call('') });
  });

  it('tool count, names and parameters', () => {
    expect400(chatError({ tools: Array.from({ length: 1537 }, () => tool('f')) }), 'Validation: Maximum of 1536 tools are supported, got 1537 (--max-request-tools)');
    expect400(chatError({ tools: [tool('a'.repeat(129))] }), 'Validation: Function name at index 0 exceeds 128 character limit, got 129 characters');
    validateChatRequest({ model: 'm', messages: user, tools: [tool('a'.repeat(128))] });
    expect400(chatError({ tools: [tool('ok'), tool(' ')] }), 'Validation: Function name at index 1 cannot be empty');
    expect400(
      chatError({ tools: [tool('bad.name')] }),
      'Validation: Function at index 0 has an invalid name: "bad.name". Only a-z, A-Z, 0-9, underscores, and dashes are allowed.',
    );
    expect400(chatError({ tools: [tool('f', [1])] }), 'Validation: Function parameters at index 0 for "f" must be a JSON Schema object');
  });

  it('malformed tools name the tool index', () => {
    const message = (tools: unknown) => chatError({ tools }).message;
    assert.match(message({ type: 'function' }), /tools: invalid type: map, expected a sequence/);
    assert.match(message([tool('a'), tool('b'), { function: { name: 'c' } }]), /tools\[2\]: missing field `type`/);
    assert.match(message([tool('a'), { type: 'retrieval', function: { name: 'c' } }]), /tools\[1\]\.type: unknown variant `retrieval`/);
    assert.match(message([tool('a'), tool('b'), { type: 'function', function: { description: 'x' } }]), /tools\[2\]\.function: missing field `name`/);
    assert.match(message([{ type: 'function', function: { name: 7 } }]), /tools\[0\]\.function\.name: invalid type: integer `7`, expected a string/);
    assert.match(message([{ type: 'function' }]), /tools\[0\]: missing field `function`/);
    assert.match(message(['x']), /tools\[0\]: invalid type: string "x"/);
    for (const tools of [{ type: 'function' }, [{ function: { name: 'c' } }], [tool('f', 'x')]]) assert.equal(chatError({ tools }).httpStatus, 400);
  });

  it('tool_choice', () => {
    expect400(chatError({ tool_choice: 'required' }), 'Validation: tool_choice is "required" but tools is empty');
    expect400(chatError({ tool_choice: 'required', tools: [] }), 'Validation: tool_choice is "required" but tools is empty');
    expect400(
      chatError({ tools: [tool('a')], tool_choice: { type: 'function', function: { name: 'b' } } }),
      'Validation: tool named "b" in tool_choice is not present in tools',
    );
  });

  it('response_format json_schema', () => {
    const fmt = (json_schema: unknown) => ({ response_format: { type: 'json_schema', json_schema } });
    expect400(chatError(fmt({ name: '', schema: {} })), 'Validation: `response_format.json_schema.name` cannot be empty');
    expect400(
      chatError(fmt({ name: 'x' })),
      'Validation: `response_format.json_schema.schema` is required when `response_format.type` is `json_schema`',
    );
    expect400(chatError(fmt({ name: 'x', schema: [1] })), 'Validation: `response_format.json_schema.schema` must be a JSON object, got array');
    expect400(chatError(fmt({ name: 'x', schema: 'x' })), 'Validation: `response_format.json_schema.schema` must be a JSON object, got string');
  });

  it('chat_template inside chat_template_args (or kwargs)', () => {
    const message = 'Validation: `chat_template` is not supported inside `chat_template_args`';
    expect400(chatError({ chat_template_args: { chat_template: 'x' } }), message);
    expect400(chatError({ chat_template_kwargs: { chat_template: 'x' } }), message);
  });

  it('continue_final_message with add_generation_prompt', () => {
    const message = 'Validation: Cannot set both `continue_final_message` and `add_generation_prompt` to True.';
    expect400(chatError({ continue_final_message: true }), message);
    expect400(chatError({ continue_final_message: true, add_generation_prompt: true }), message);
    validateChatRequest({ model: 'm', messages: user, continue_final_message: true, add_generation_prompt: false });
  });

  it('function_call and functions are 501', () => {
    const fc = chatError({ function_call: 'auto' });
    assert.equal(fc.httpStatus, 501);
    assert.equal(fc.message, 'Validation: `function_call` is deprecated. Please migrate to use `tool_choice` instead.');
    const fns = chatError({ functions: [] });
    assert.equal(fns.httpStatus, 501);
    assert.equal(fns.message, 'Validation: `functions` is deprecated. Please migrate to use `tools` instead.');
  });

  it('thinking.type', () => {
    expect400(chatError({ thinking: { type: 'maybe' } }), 'Validation: `thinking.type` must be `enabled`, `disabled`, or `adaptive`');
  });
});

describe('unknown fields, nvext, guided decoding (§5.4)', () => {
  it('rejects unknown root fields, listing them', () => {
    expect400(chatError({ foo: 1, bar: 2 }), 'Validation: Unsupported parameter(s): `foo`, `bar`');
    expect400(completionError({ baz: true }), 'Validation: Unsupported parameter(s): `baz`');
  });

  it('the current reference\'s caching hints are accepted; moderation, which a client relies on, is refused naming it', () => {
    validateChatRequest({ model: 'm', messages: user, prompt_cache_key: 'k', prompt_cache_retention: '24h', prompt_cache_options: { mode: 'explicit', ttl: '30m' }, moderation: null });
    expect400(
      chatError({ moderation: { model: 'omni-moderation-latest' } }),
      'Validation: `moderation` is not supported: this gateway runs no moderation model, so it cannot moderate the input or the output; remove the field',
    );
  });

  it('drops them when told to ignore', () => {
    const req = validateChatRequest({ model: 'm', messages: user, foo: 1 }, { ignoreUnsupportedFields: true });
    assert.equal((req as unknown as Record<string, unknown>).foo, undefined);
  });

  it('accepts and type-checks passthrough fields', () => {
    validateChatRequest({ model: 'm', messages: user, cache_salt: 's', stop_token_ids: [1], detokenize: false, allowed_token_ids: [2], bad_words_token_ids: [[3]], logprob_token_ids: [4] });
    expect400(chatError({ stop_token_ids: ['a'] }), 'Validation: `stop_token_ids` must be an array of token IDs');
    expect400(chatError({ cache_salt: 1 }), 'Validation: `cache_salt` must be a string');
    expect400(chatError({ detokenize: 'no' }), 'Validation: `detokenize` must be a boolean');
    expect400(chatError({ bad_words_token_ids: [1] }), 'Validation: `bad_words_token_ids` must be an array of token ID arrays');
  });

  it('rejects unknown nvext keys the way serde words it', () => {
    const err = chatError({ nvext: { agent_context: {} } });
    assert.equal(err.httpStatus, 400);
    assert.ok(err.message.startsWith('Validation: invalid nvext: unknown field `agent_context`, expected one of `greed_sampling`, `use_raw_prompt`, '));
    expect400(chatError({ nvext: { greed_sampling: 'yes' } }), 'Validation: invalid nvext: `greed_sampling`: invalid type: string "yes", expected a boolean');
  });

  it('nvext completion_token_ids needs one choice', () => {
    expect400(
      chatError({ n: 2, nvext: { extra_fields: ['completion_token_ids'] } }),
      'Validation: `nvext.extra_fields=["completion_token_ids"]` requires exactly one generated choice',
    );
  });

  it('only one guided-decoding constraint; a whitespace pattern is a modifier', () => {
    expect400(chatError({ guided_json: {}, guided_regex: 'a+' }), 'Validation: Only one guided-decoding constraint can be set; received: json, regex');
    validateChatRequest({ model: 'm', messages: user, guided_json: {}, guided_whitespace_pattern: ' ' });
  });

  it('stream_options without stream', () => {
    const message = "Validation: The 'stream_options' field is only allowed when 'stream' is set to true.";
    expect400(chatError({ stream_options: { include_usage: true } }), message);
    expect400(completionError({ stream: false, stream_options: { include_usage: true } }), message);
    validateChatRequest({ model: 'm', messages: user, stream: true, stream_options: { include_usage: true } });
  });
});

describe('type errors name the field', () => {
  it('a string temperature', () => {
    expect400(
      chatError({ temperature: 'hot' }),
      'Failed to deserialize the JSON body into the target type: temperature: invalid type: string "hot", expected a number',
    );
  });

  it('other shapes', () => {
    expect400(chatError({ n: 1.5 }), 'Failed to deserialize the JSON body into the target type: n: invalid type: floating point `1.5`, expected a non-negative integer');
    expect400(chatError({ stream: 'yes' }), 'Failed to deserialize the JSON body into the target type: stream: invalid type: string "yes", expected a boolean');
    expect400(chatError({ messages: 'hi' }), 'Failed to deserialize the JSON body into the target type: messages: invalid type: string "hi", expected a sequence');
    expect400(
      chatError({ messages: [{ role: 'robot', content: 'x' }] }),
      'Failed to deserialize the JSON body into the target type: messages[0].role: unknown variant `robot`, expected one of `system`, `developer`, `user`, `assistant`, `tool`',
    );
    expect400(errorOf(() => validateChatRequest({ model: 'm' })), 'Failed to deserialize the JSON body into the target type: missing field `messages`');
    expect400(errorOf(() => validateChatRequest([1])), 'Failed to deserialize the JSON body into the target type: invalid type: sequence, expected a JSON object');
    expect400(completionError({ prompt: [1, 'a'] }), 'Failed to deserialize the JSON body into the target type: prompt: data did not match any variant: expected a string, an array of strings, an array of token ids or an array of token id arrays');
  });
});

describe('completions validation (§5.1, §5.3)', () => {
  const cases: [Record<string, unknown>, string][] = [
    [{ prompt: '' }, 'Validation: Prompt string cannot be empty'],
    [{ prompt: [] }, 'Validation: Prompt string array cannot be empty'],
    [{ prompt: ['a', ''] }, 'Validation: Prompt string at index 1 cannot be empty'],
    [{ prompt: [[1], []] }, 'Validation: Prompt integer array at index 1 cannot be empty'],
    [{ prompt: undefined }, "Validation: At least one of 'prompt' or 'prompt_embeds' must be provided"],
    [{ prompt_embeds: 'not base64!' }, 'Validation: prompt_embeds must be valid base64-encoded data'],
    [{ prompt_embeds: Buffer.alloc(20).toString('base64') }, 'Validation: prompt_embeds decoded data must be at least 100 bytes, got 20 bytes'],
    [{ add_generation_prompt: true }, 'Validation: `add_generation_prompt` and `continue_final_message` are only supported on /v1/chat/completions'],
    [{ continue_final_message: false }, 'Validation: `add_generation_prompt` and `continue_final_message` are only supported on /v1/chat/completions'],
    [{ suffix: 'x'.repeat(10001) }, 'Validation: Suffix is too long, maximum 10000 characters'],
    [{ logprobs: 6 }, 'Validation: Logprobs must be between 0 and 5, got 6'],
    [{ best_of: 21 }, 'Validation: Best_of must be between 0 and 20, got 21'],
    [{ best_of: 1, n: 2 }, 'Validation: Best_of must be greater than or equal to n, got best_of=1 and n=2'],
    [{ prompt: ['a', 'b'], n: 65 }, 'Validation: Total choices (batch_size × n = 2 × 65 = 130) exceeds maximum of 128'],
    [{ max_tokens: 0 }, 'Validation: Max tokens must be greater than 0, got 0'],
    [{ temperature: 2.5 }, 'Validation: Temperature must be between 0 and 2, got 2.5'],
  ];
  for (const [extra, message] of cases) {
    it(message, () => expect400(completionError(extra), message));
  }

  it('accepts every prompt form', () => {
    for (const prompt of ['a', ['a', 'b'], [1, 2], [[1], [2, 3]]]) validateCompletionRequest({ model: 'm', prompt });
  });
});

describe('assistant tool-call arguments against the tool parameters (§5.2)', () => {
  const tools = [
    {
      type: 'function',
      function: {
        name: 'get_weather',
        parameters: {
          type: 'object',
          properties: { location: { type: 'string' }, days: { type: 'integer' }, units: { enum: ['c', 'f'] } },
          required: ['location'],
        },
      },
    },
  ];
  const withArgs = (args: string) => ({
    model: 'm',
    tools,
    messages: [
      { role: 'user', content: 'weather?' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: args } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'sunny' },
    ],
  });

  it('a number where the tool takes a string is 400 "must be of type"', () => {
    assert.throws(
      () => validateChatRequest(withArgs('{"location":123}')),
      (err: unknown) =>
        err instanceof DynamoError &&
        err.httpStatus === 400 &&
        err.message ===
          'Validation: `messages[1].tool_calls[0].function.arguments` does not match the parameters of tool "get_weather": `location` must be of type string, got number',
    );
  });

  it('missing required, wrong enum and float for integer are caught; conforming args pass', () => {
    assert.throws(() => validateChatRequest(withArgs('{"days":2}')), /missing required property `location`/);
    assert.throws(() => validateChatRequest(withArgs('{"location":"Paris","units":"k"}')), /`units` must be one of "c", "f"/);
    assert.throws(() => validateChatRequest(withArgs('{"location":"Paris","days":1.5}')), /`days` must be of type integer, got number/);
    assert.doesNotThrow(() => validateChatRequest(withArgs('{"location":"Paris","days":3,"units":"c"}')));
  });
});

describe('DYN_REJECT_MEDIA_INPUTS (§5.2)', () => {
  const withParts = (parts: unknown[], extra: Record<string, unknown> = {}) => ({
    model: 'm',
    messages: [{ role: 'system', content: 'be brief' }, { role: 'user', content: parts }],
    ...extra,
  });
  const opts = { rejectMediaInputs: ['image', 'audio'] };

  it('refuses the configured media kinds, naming the part and the message', () => {
    assert.throws(
      () => validateChatRequest(withParts([{ type: 'text', text: 'what is this?' }, { type: 'image_url', image_url: { url: 'http://x/y.png' } }]), opts),
      (err: unknown) =>
        err instanceof DynamoError &&
        err.httpStatus === 400 &&
        err.message === 'Validation: image input is not supported for this model: remove the `image_url` content part from messages[1]',
    );
    assert.throws(() => validateChatRequest(withParts([{ type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } }]), opts), /audio input is not supported/);
    assert.throws(() => validateChatRequest(withParts([{ type: 'text', text: 'hi' }], { modalities: ['text', 'audio'] }), opts), /Validation: audio output is not supported for this model/);
  });

  it('lets other kinds and text through, and rejects nothing when unset', () => {
    assert.doesNotThrow(() => validateChatRequest(withParts([{ type: 'video_url', video_url: { url: 'http://x/v.mp4' } }]), opts));
    assert.doesNotThrow(() => validateChatRequest(withParts([{ type: 'image_url', image_url: { url: 'http://x/y.png' } }])));
  });
});
