// `-i/--interactive`: the frontend chats in the terminal instead of serving HTTP. The chat runs in
// this process over the frontend's own ModelManager, so it takes the pipeline every HTTP request
// takes (template, tokenizer, router, workers, detokenizer), with no HTTP hop to itself and no port.
import type { Config } from '../../config/index.js';
import { ChatSession, runTerminalChat } from '../../frontends/interactive/index.js';
import type { ModelManager, ServedModel } from '../../models/index.js';
import type { Logger } from '../../observability/index.js';
import type { RequestScope } from '../../protocols/index.js';

export interface InteractiveChat {
  /** Resolves when the user ends the chat. */
  readonly done: Promise<void>;
}

const MODEL_POLL_MS = 100;

/** The model to chat with: `--model-name` when given, else the first ready chat model discovered. */
async function chatModel(models: ModelManager, name: string | undefined, write: (s: string) => void): Promise<ServedModel> {
  let announced = false;
  for (;;) {
    const ready = models.listReady().filter((m) => m.card.modelType.includes('Chat'));
    const model = name === undefined ? ready[0] : ready.find((m) => m.name === name);
    if (model) return model;
    if (!announced) write(`Waiting for ${name ?? 'a chat model'} to be discovered...\n`);
    announced = true;
    await new Promise((r) => setTimeout(r, MODEL_POLL_MS));
  }
}

export function startInteractiveChat(config: Config, models: ModelManager, requestScope: RequestScope, logger: Logger): InteractiveChat {
  const output = process.stdout;
  const done = (async () => {
    const model = await chatModel(models, config.modelName, (s) => output.write(s));
    logger.debug({ model: model.name }, 'interactive chat started');
    await runTerminalChat({ input: process.stdin, output, session: new ChatSession(model, requestScope) });
  })();
  return { done };
}
