// `--mocker-script FILE`: replies chosen by the conversation's turn, so an agent's tool loop can run
// against the mocker: the first turn answers with a tool call written in the model's own format
// (read back by the configured tool-call parser), the turn after the tool's result with a final
// answer. A request's turn is the number of assistant turns already in its rendered prompt; a reply
// may also ask for a phrase in the last user turn, which tells an agent's side requests apart.
import { readFileSync } from 'node:fs';
import yaml from 'js-yaml';
import { ConfigError } from '../../config/index.js';

/** One scripted reply and when it is given. */
export interface ScriptedReply {
  text: string;
  /** Assistant turns already in the prompt; absent: any. */
  turn?: number;
  /** A phrase the prompt's last user turn holds; absent: any. */
  contains?: string;
}

/** What the prompt says that a reply may be chosen by. */
export interface ConversationPoint {
  turn: number;
  lastUser: string | null;
}

export function loadMockerScript(file: string): ScriptedReply[] {
  let doc: unknown;
  try {
    doc = yaml.load(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ConfigError(`--mocker-script ${file}: ${(err as Error).message}`);
  }
  const replies = (doc as { replies?: unknown } | null)?.replies;
  if (!Array.isArray(replies) || replies.length === 0) throw new ConfigError(`--mocker-script ${file}: \`replies\` must be a non-empty list`);
  return replies.map((entry, i) => scriptedReply(entry, `--mocker-script ${file}: replies[${i}]`));
}

function scriptedReply(entry: unknown, where: string): ScriptedReply {
  if (typeof entry !== 'object' || entry === null) throw new ConfigError(`${where} must be a mapping with \`text\``);
  const { text, turn, contains, ...rest } = entry as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length > 0) throw new ConfigError(`${where}: unknown key(s) ${unknown.join(', ')} (text, turn, contains)`);
  if (typeof text !== 'string') throw new ConfigError(`${where}.text must be a string`);
  if (turn !== undefined && (!Number.isInteger(turn) || (turn as number) < 0)) throw new ConfigError(`${where}.turn must be a whole number ≥ 0`);
  if (contains !== undefined && typeof contains !== 'string') throw new ConfigError(`${where}.contains must be a string`);
  return { text, ...(turn === undefined ? {} : { turn: turn as number }), ...(contains === undefined ? {} : { contains }) };
}

/** The first reply whose conditions hold; a conversation no reply fits is told so, visibly. */
export function chooseReply(replies: readonly ScriptedReply[], at: ConversationPoint): string {
  const fits = replies.find(
    (reply) => (reply.turn === undefined || reply.turn === at.turn) && (reply.contains === undefined || (at.lastUser ?? '').includes(reply.contains)),
  );
  return fits?.text ?? `[mocker script: no reply for turn ${at.turn}]`;
}

/** Assistant turns already in a prompt: the assistant opener's count, less the generation prompt's own. */
export function assistantTurns(prompt: string, assistantOpen: string): number {
  if (!assistantOpen) return 0;
  let count = 0;
  for (let at = prompt.indexOf(assistantOpen); at >= 0; at = prompt.indexOf(assistantOpen, at + assistantOpen.length)) count++;
  return Math.max(0, count - 1);
}
