// The read-eval-print loop of `--interactive`: one line in, the answer streamed out, until `/exit`,
// Ctrl-D, or Ctrl-C at the prompt. Ctrl-C while an answer streams stops that answer only.
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import type { ChatSession } from './chat-session.js';

export interface TerminalChatOptions {
  input: Readable;
  output: Writable;
  session: ChatSession;
}

const PROMPT = '> ';
const HELP = 'Type a message and press Enter. Commands: /clear (forget the conversation), /exit (or Ctrl-D).';

/** Commands typed at the prompt, by name; each returns false when the chat should end. */
const COMMANDS: Record<string, (session: ChatSession, output: Writable) => boolean> = {
  '/exit': () => false,
  '/quit': () => false,
  '/clear': (session, output) => {
    session.clear();
    output.write('(conversation cleared)\n');
    return true;
  },
  '/help': (_session, output) => {
    output.write(`${HELP}\n`);
    return true;
  },
};

/** Runs the chat until the user ends it; resolves then. */
export async function runTerminalChat({ input, output, session }: TerminalChatOptions): Promise<void> {
  const rl = createInterface({ input, output, prompt: PROMPT, terminal: (output as { isTTY?: boolean }).isTTY === true });
  let answering: AbortController | undefined;
  rl.on('SIGINT', () => {
    if (answering) answering.abort();
    else rl.close();
  });
  output.write(`Chatting with ${session.modelName}. ${HELP}\n`);
  rl.prompt();
  try {
    for await (const raw of rl) {
      const line = raw.trim();
      const command = COMMANDS[line];
      if (command && !command(session, output)) break;
      if (!command && line !== '') {
        answering = new AbortController();
        await answer(session, line, answering.signal, output);
        answering = undefined;
      }
      rl.prompt();
    }
  } finally {
    rl.close();
  }
}

async function answer(session: ChatSession, line: string, signal: AbortSignal, output: Writable): Promise<void> {
  try {
    for await (const text of session.send(line, signal)) output.write(text);
    output.write(signal.aborted ? ' [stopped]\n' : '\n');
  } catch (err) {
    output.write(`\nerror: ${(err as Error).message}\n`);
  }
}
