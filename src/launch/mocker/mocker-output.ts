// `--mocker-output`: what the simulated engine answers. The engine takes a script of token ids per
// prompt (engines/mocker/scripted-stream.ts); the tokenizer and the chat template that make one
// live here, on the launch side, as the engine imports no pipeline.
import { ConfigError, type Config } from '../../config/index.js';
import type { OutputScript } from '../../engines/mocker/index.js';
import type { ModelDeploymentCard } from '../../models/index.js';
import { HfTokenizer, Preprocessor, validateChatRequest } from '../../pipeline/index.js';
import { assistantTurns, chooseReply, loadMockerScript } from './mocker-script.js';

type OutputMode = Config['mockerOutput'];

interface OutputSetup {
  config: Config;
  card: ModelDeploymentCard;
  tokenizer: HfTokenizer;
}

/** The engine's `output` option for `--mocker-output`; undefined for seeded random text. */
export function mockerOutputScript(config: Config, card: ModelDeploymentCard): OutputScript | undefined {
  const mode = outputMode(config);
  return mode === 'random' ? undefined : OUTPUTS[mode]({ config, card, tokenizer: new HfTokenizer(card.tokenizerJsonPath) });
}

/** What a mode needs beside it: `text` its text, `script` its file; each alone implies its mode. */
const MODE_INPUTS: Readonly<Record<'text' | 'script', { flag: string; given: (config: Config) => boolean }>> = {
  text: { flag: '--mocker-output-text <text>', given: (config) => config.mockerOutputText !== undefined },
  script: { flag: '--mocker-script <file>', given: (config) => config.mockerScript !== undefined },
};

/** `--mocker-output-text` or `--mocker-script` alone means its mode; with another mode it is a mistake worth saying. */
function outputMode(config: Config): OutputMode {
  const given = (Object.keys(MODE_INPUTS) as ('text' | 'script')[]).filter((mode) => MODE_INPUTS[mode].given(config));
  if (given.length > 1) throw new ConfigError('--mocker-output-text and --mocker-script cannot be combined');
  const implied = given[0];
  if (implied === undefined) {
    const needs = config.mockerOutput === 'text' || config.mockerOutput === 'script' ? MODE_INPUTS[config.mockerOutput] : undefined;
    if (needs) throw new ConfigError(`--mocker-output ${config.mockerOutput} needs ${needs.flag}`);
    return config.mockerOutput;
  }
  if (config.mockerOutput !== 'random' && config.mockerOutput !== implied) {
    throw new ConfigError(`${MODE_INPUTS[implied].flag.split(' ')[0]} cannot be combined with --mocker-output ${config.mockerOutput}`);
  }
  return implied;
}

const OUTPUTS: Readonly<Record<Exclude<OutputMode, 'random'>, (setup: OutputSetup) => OutputScript>> = {
  text: ({ config, tokenizer }) => {
    const tokens = tokenizer.encode(config.mockerOutputText!, false);
    return () => tokens;
  },
  'echo-last-user': ({ card, tokenizer }) => {
    const turns = userTurnMarkers(card, tokenizer);
    // A template that cannot render fails each request (awaited below), not the process.
    turns.catch(() => undefined);
    return async (prompt) => {
      const text = lastUserText(await tokenizer.decode([...prompt], false), await turns);
      return text === null ? null : tokenizer.encode(text, false);
    };
  },
  script: ({ config, card, tokenizer }) => {
    const replies = loadMockerScript(config.mockerScript!);
    const turns = userTurnMarkers(card, tokenizer);
    turns.catch(() => undefined);
    return async (prompt) => {
      const markers = await turns;
      const text = await tokenizer.decode([...prompt], false);
      const reply = chooseReply(replies, { turn: assistantTurns(text, markers.assistantOpen), lastUser: lastUserText(text, markers) });
      return tokenizer.encode(reply, false);
    };
  },
};

/** Where a user turn's text starts and ends in a rendered prompt. */
export interface UserTurnMarkers {
  /** What the template writes right before a user message's text. */
  open: string;
  /** What it writes right after it, when the assistant answers next. */
  close: string;
  /** What it writes between a message and the assistant's text after it (the generation prompt ends so too). */
  assistantOpen: string;
}

const PROBE = ['\u2063A\u2063', '\u2063B\u2063', '\u2063C\u2063'] as const;

/**
 * Learns the markers from the model's own chat template: a user turn opens with what the template
 * writes both before the first user message and between an assistant message and the next user
 * message (their common suffix), and closes with what it writes after a user message both when the
 * prompt ends there and when an assistant message follows (their common prefix).
 */
export async function userTurnMarkers(card: ModelDeploymentCard, tokenizer: HfTokenizer): Promise<UserTurnMarkers> {
  const preprocessor = new Preprocessor(card, tokenizer);
  const render = async (messages: { role: string; content: string }[]): Promise<string> =>
    (await preprocessor.preprocessChat(validateChatRequest({ model: card.displayName, messages }))).formattedPrompt ?? '';
  const [a, b, c] = PROBE;
  const single = await render([{ role: 'user', content: a }]);
  const turns = await render([
    { role: 'user', content: a },
    { role: 'assistant', content: b },
    { role: 'user', content: c },
  ]);
  const open = commonSuffix(single.slice(0, single.indexOf(a)), turns.slice(turns.indexOf(b) + b.length, turns.indexOf(c)));
  // What stands between a user message and the assistant's answer (the turn's close and the assistant's opener).
  const assistantOpen = turns.slice(turns.indexOf(a) + a.length, turns.indexOf(b));
  const close = commonPrefix(single.slice(single.indexOf(a) + a.length), assistantOpen);
  return { open, close, assistantOpen };
}

/** The text of the prompt's last user turn; null when the prompt has none (a completions prompt). */
export function lastUserText(prompt: string, { open, close }: Pick<UserTurnMarkers, 'open' | 'close'>): string | null {
  if (!open) return null;
  const start = prompt.lastIndexOf(open);
  if (start < 0) return null;
  const from = start + open.length;
  const end = close ? prompt.indexOf(close, from) : -1;
  return prompt.slice(from, end < 0 ? prompt.length : end);
}

function commonPrefix(x: string, y: string): string {
  let n = 0;
  while (n < x.length && n < y.length && x[n] === y[n]) n++;
  return x.slice(0, n);
}

function commonSuffix(x: string, y: string): string {
  let n = 0;
  while (n < x.length && n < y.length && x[x.length - 1 - n] === y[y.length - 1 - n]) n++;
  return x.slice(x.length - n);
}
