// --mocker-output: the flags, and the user-turn markers learnt from the model's chat template.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError } from '../../../src/config/index.js';
import { lastUserText, mockerOutputScript, userTurnMarkers } from '../../../src/launch/mocker/mocker-output.js';
import { loadDefaultModelCard } from '../../../src/models/index.js';
import { HfTokenizer } from '../../../src/pipeline/index.js';
import { runConfig } from '../../support/run-config.js';

const card = loadDefaultModelCard();

function configOf(args: string[]) {
  return runConfig(['mocker', ...args], {});
}

test('the output flags: random by default, text implied by --mocker-output-text, contradictions refused', () => {
  assert.equal(mockerOutputScript(configOf([]), card), undefined);
  assert.equal(typeof mockerOutputScript(configOf(['--mocker-output-text', 'hi']), card), 'function');
  assert.equal(typeof mockerOutputScript(configOf(['--mocker-output', 'echo-last-user']), card), 'function');
  assert.throws(() => mockerOutputScript(configOf(['--mocker-output', 'text']), card), (e: Error) => e instanceof ConfigError && /needs --mocker-output-text/.test(e.message));
  assert.throws(
    () => mockerOutputScript(configOf(['--mocker-output', 'echo-last-user', '--mocker-output-text', 'x']), card),
    (e: Error) => e instanceof ConfigError && /cannot be combined/.test(e.message),
  );
  assert.throws(() => configOf(['--mocker-output', 'loud']), /--mocker-output must be one of random, text, echo-last-user/);
});

test('the Qwen3 template\'s user turns are found, and the last one is recovered from a prompt', async () => {
  const markers = await userTurnMarkers(card, new HfTokenizer(card.tokenizerJsonPath));
  assert.deepEqual(markers, { open: '<|im_start|>user\n', close: '<|im_end|>\n<|im_start|>assistant\n', assistantOpen: '<|im_end|>\n<|im_start|>assistant\n' });
  const prompt = '<|im_start|>system\ns<|im_end|>\n<|im_start|>user\nfirst<|im_end|>\n<|im_start|>assistant\nok<|im_end|>\n<|im_start|>user\nsecond\nline<|im_end|>\n<|im_start|>assistant\n';
  assert.equal(lastUserText(prompt, markers), 'second\nline');
  assert.equal(lastUserText('a bare completions prompt', markers), null);
});

test('echo-last-user answers a prompt with its last user turn\'s tokens, and a prompt without one with random text', async () => {
  const tokenizer = new HfTokenizer(card.tokenizerJsonPath);
  const script = mockerOutputScript(configOf(['--mocker-output', 'echo-last-user']), card)!;
  const prompt = await tokenizer.encode('<|im_start|>user\nHello, wörld! 你好<|im_end|>\n<|im_start|>assistant\n', false);
  assert.deepEqual(await script(prompt), await tokenizer.encode('Hello, wörld! 你好', false));
  assert.equal(await script(await tokenizer.encode('no turns here', false)), null);
});
