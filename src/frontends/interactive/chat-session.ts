// One terminal conversation with one served model, through the same pipeline as the HTTP routes:
// validation, chat template, tokenizer, router, detokenizer and the response fold. The history is
// kept here and sent whole with every turn, as an OpenAI client would.
import { randomUUID } from 'node:crypto';
import type { ServedModel } from '../../models/index.js';
import { generateChoices, RequestLifecycle, ResponseFold } from '../../pipeline/index.js';
import type { ChatMessage, RequestScope } from '../../protocols/index.js';

/** The `endpoint` label of this frontend's request events (metrics, tracing). */
export const INTERACTIVE_ENDPOINT = 'interactive_chat';

export class ChatSession {
  private readonly history: ChatMessage[] = [];

  constructor(
    private readonly model: ServedModel,
    private readonly requestScope: RequestScope,
  ) {}

  get modelName(): string {
    return this.model.name;
  }

  /** The conversation so far (user and assistant turns). */
  get messages(): readonly ChatMessage[] {
    return this.history;
  }

  clear(): void {
    this.history.length = 0;
  }

  /**
   * Sends `text` as the next user turn and yields the answer's text as it streams. The answer joins
   * the history when the stream ends, also when `signal` cut it short (the user saw that much); a
   * failed turn leaves the history as it was.
   */
  async *send(text: string, signal: AbortSignal): AsyncGenerator<string> {
    const { model } = this;
    const requestId = randomUUID();
    const request = RequestLifecycle.start({
      scope: this.requestScope,
      id: requestId,
      model: model.name,
      endpoint: INTERACTIVE_ENDPOINT,
      requestType: 'stream',
    });
    const messages: ChatMessage[] = [...this.history, { role: 'user', content: text }];
    let answer = '';
    try {
      const chat = model.preprocessor.validateChat({ model: model.name, messages, stream: true });
      const prepared = await model.preprocessor.preprocessChat(chat);
      request.tokenized([prepared]);
      const fold = new ResponseFold({ promptTokens: prepared.promptTokens, collectText: false, request });
      const steps = generateChoices({
        target: { engine: model.router, tokenTable: model.tokenTable },
        prompts: [prepared],
        n: 1,
        requestId,
        signal,
        hooks: request.contextHooks(),
      });
      for await (const step of steps) {
        const delta = fold.step(step);
        if (!delta?.text) continue;
        answer += delta.text;
        yield delta.text;
      }
    } catch (err) {
      if (!signal.aborted) {
        request.fail(err);
        throw err;
      }
    }
    if (signal.aborted) request.cancel();
    else request.succeed();
    this.history.push(messages[messages.length - 1]!, { role: 'assistant', content: answer });
  }
}
