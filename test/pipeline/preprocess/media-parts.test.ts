// Media content parts in chat: which kinds a template renders (read from its text), the 400 that
// names a part the model cannot take, and the media carried to the engine in `multi_modal_data`.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadDefaultModelCard } from '../../../src/models/index.js';
import { HfTokenizer, Preprocessor, templateMediaKinds } from '../../../src/pipeline/preprocess/index.js';
import { ValidationError } from '../../../src/protocols/index.js';
import { VISION_TEMPLATE } from '../../support/media-templates.js';

const AUDIO_TEMPLATE =
  "{% for m in messages %}{% if m.content is string %}{{ m.content }}{% else %}{% for c in m.content %}" +
  "{% if c.type == \"input_audio\" or c.type == 'audio_url' %}<|AUDIO|>{% else %}{{ c.text }}{% endif %}{% endfor %}{% endif %}{% endfor %}";

const base = loadDefaultModelCard();
const tokenizer = new HfTokenizer(base.tokenizerJsonPath);
const preprocessor = (templates: Record<string, string>, rejectMediaInputs?: string[]) =>
  new Preprocessor({ ...base, chatTemplates: templates }, tokenizer, { rejectMediaInputs });
const textOnly = new Preprocessor(base, tokenizer);
const vision = preprocessor({ default: VISION_TEMPLATE });

const IMAGE = { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } };
const VIDEO = { type: 'video_url', video_url: { url: 'https://example.com/clip.mp4' } };
const AUDIO = { type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } };
const text = (t: string) => ({ type: 'text', text: t });

const chat = (pre: Preprocessor, content: unknown[]) =>
  pre.preprocessChat(pre.validateChat({ model: 'm', messages: [{ role: 'system', content: 'be brief' }, { role: 'user', content }] }));

async function rejects400(promise: Promise<unknown>, message: string): Promise<void> {
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(err instanceof ValidationError, String(err));
    assert.equal(err.httpStatus, 400);
    assert.equal(err.message, message);
    return true;
  });
}

describe('templateMediaKinds', () => {
  it('reads the kinds a template renders from the part types it names', () => {
    assert.deepEqual([...templateMediaKinds([VISION_TEMPLATE])], ['image', 'video']);
    assert.deepEqual([...templateMediaKinds([AUDIO_TEMPLATE])], ['audio']);
    assert.deepEqual([...templateMediaKinds(["{% for c in m.content | selectattr('type', 'equalto', 'image') %}<image>{% endfor %}"])], ['image']);
  });

  it('finds none in a text-only template (the bundled Qwen3 one), nor in words that merely mention media', () => {
    assert.deepEqual([...templateMediaKinds(Object.values(base.chatTemplates))], []);
    assert.deepEqual([...templateMediaKinds(['You can describe an image or a video in words: {{ messages[0].content }}'])], []);
    assert.equal(textOnly.mediaKinds.size, 0);
  });
});

describe('media parts in chat', () => {
  it('a text-only model answers 400 naming the part, never a template error', async () => {
    await rejects400(chat(textOnly, [text('what is this?'), IMAGE]), 'Validation: messages[1].content[1]: this model accepts text only');
    await rejects400(chat(textOnly, [AUDIO]), 'Validation: messages[1].content[0]: this model accepts text only');
  });

  it('a model that renders images and videos refuses audio, saying what it accepts', async () => {
    await rejects400(chat(vision, [text('listen'), AUDIO]), 'Validation: messages[1].content[1]: this model does not accept audio input (it accepts text and image, video)');
  });

  it('carries images and videos beside the tokens, keyed by part type in message order, with the messages', async () => {
    const second = { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } };
    const run = await chat(vision, [text('compare'), IMAGE, VIDEO, second]);
    assert.deepEqual(run.request.multi_modal_data, {
      image_url: [{ Url: 'https://example.com/cat.png' }, { Url: 'data:image/png;base64,iVBORw0KGgo=' }],
      video_url: [{ Url: 'https://example.com/clip.mp4' }],
    });
    assert.equal(
      run.formattedPrompt,
      '<|im_start|>system\nbe brief<|im_end|>\n<|im_start|>user\ncompare<|vision_start|><|image_pad|><|vision_end|>' +
        '<|vision_start|><|video_pad|><|vision_end|><|vision_start|><|image_pad|><|vision_end|><|im_end|>\n<|im_start|>assistant\n',
    );
    assert.equal((run.request.extra_args?.messages as unknown[]).length, 2);
  });

  it('OpenAI inline input_audio travels as a data: URL under audio_url', async () => {
    const run = await chat(preprocessor({ default: AUDIO_TEMPLATE }), [text('transcribe '), AUDIO]);
    assert.deepEqual(run.request.multi_modal_data, { audio_url: [{ Url: 'data:audio/wav;base64,UklGRg==' }] });
    assert.equal(run.formattedPrompt, 'be brieftranscribe <|AUDIO|>');
  });

  it('a text-only request carries no multi_modal_data', async () => {
    const run = await chat(vision, [text('hi')]);
    assert.equal(run.request.multi_modal_data, undefined);
    assert.equal(run.request.extra_args?.messages, undefined);
  });

  it('a media part without its URL is a 400 naming the field', async () => {
    await rejects400(chat(vision, [{ type: 'image_url', image_url: {} }]), 'Validation: messages[1].content[0].image_url.url: expected a URL string');
  });

  it('DYN_REJECT_MEDIA_INPUTS still refuses a kind the template renders', async () => {
    const pre = preprocessor({ default: VISION_TEMPLATE }, ['image']);
    await assert.rejects(
      async () => chat(pre, [IMAGE]),
      /Validation: image input is not supported for this model: remove the `image_url` content part from messages\[1\]/,
    );
    assert.ok((await chat(pre, [VIDEO])).request.multi_modal_data);
  });
});
