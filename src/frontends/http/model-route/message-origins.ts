// Where each chat message of a translated request came from, so a 400 about `messages[3]` names
// what the client sent (`input[2]` of a Responses request, `messages[1].content[0]` of a Messages
// request): the translations number messages differently from their sources. Keyed by the message
// object itself, so the translators need not thread a second array through every helper.
import { ValidationError } from '../../../protocols/index.js';

const origins = new WeakMap<object, string>();

/** Records that `message` was translated from the client's `path`. */
export function noteOrigin<M extends object>(message: M, path: string): M {
  origins.set(message, path);
  return message;
}

/**
 * Runs `check` over a translated chat body; a validation error about `messages[N]` is re-thrown
 * about the client's own item where the translation noted one.
 */
export function inClientTerms<T>(chatBody: unknown, check: () => T): T {
  try {
    return check();
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    // Chat's rule failures read `Validation: messages[…]`, its type failures `messages[…]`.
    const match = /^(Validation: )?messages\[(\d+)\](\.content\[(\d+)\])?/.exec(err.message);
    if (!match) throw err;
    const [whole, prefix = '', index, contentPath, partIndex] = match;
    const messages = (chatBody as { messages?: unknown } | null)?.messages;
    const message = Array.isArray(messages) ? messages[Number(index)] : undefined;
    const content = (message as { content?: unknown } | undefined)?.content;
    const part = partIndex !== undefined && Array.isArray(content) ? content[Number(partIndex)] : undefined;
    const rest = err.message.slice(whole.length);
    // The part's own origin where it has one; else the message's, keeping the rest of the path.
    const byPart = originOf(part);
    if (byPart !== undefined) throw new ValidationError(prefix + byPart + rest, err.details);
    const byMessage = originOf(message);
    if (byMessage === undefined) throw err;
    throw new ValidationError(prefix + byMessage + (contentPath ?? '') + rest, err.details);
  }
}

function originOf(value: unknown): string | undefined {
  return typeof value === 'object' && value !== null ? origins.get(value) : undefined;
}
