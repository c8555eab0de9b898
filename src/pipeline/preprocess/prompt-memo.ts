// Small chats seen again: the same template inputs render the same prompt and give the same ids,
// so a recent small chat's prompt is kept by an exact key of those inputs and not rendered and
// tokenized again. The key is exact (every value and key order as the template sees them, `undefined`
// apart from absent); inputs it cannot write exactly are not kept, nor is the prompt of a template
// that reads the clock (strftime_now).

import type { ChatCompletionRequest } from '../../protocols/index.js';

/** Keys up to this many characters are kept: the memo is for small chats, and holds little memory at most. */
const MAX_KEY_CHARS = 4096;
/** Prompts per generation (two generations: at most twice this many are kept). */
const GENERATION_SIZE = 128;

/** What a kept prompt gives back: its text and its ids. */
export interface MemoPrompt {
  text: string;
  tokens: readonly number[];
}

/** A model's recent small chat prompts, by an exact key of what its template reads of a request. */
export class PromptMemo {
  private young = new Map<string, MemoPrompt>();
  private old = new Map<string, MemoPrompt>();

  /** Whether a template's renders may be kept: one that reads the clock renders differently over time. */
  static keeps(templateSources: readonly string[]): boolean {
    return templateSources.every((source) => !source.includes('strftime_now'));
  }

  /** The key of what the template reads of `req`; null when it cannot be written exactly or is too big to keep. */
  keyOf(req: ChatCompletionRequest): string | null {
    const key = new KeyWriter();
    const whole =
      key.value(req.messages) &&
      key.value(req.tools) &&
      key.value(req.tool_choice) &&
      key.value(req.add_generation_prompt) &&
      key.value(req.continue_final_message) &&
      key.value(req.chat_template_args);
    return whole && key.text.length <= MAX_KEY_CHARS ? key.text : null;
  }

  get(key: string): MemoPrompt | undefined {
    const young = this.young.get(key);
    if (young !== undefined) return young;
    const old = this.old.get(key);
    if (old !== undefined) this.remember(key, old);
    return old;
  }

  remember(key: string, prompt: MemoPrompt): void {
    if (this.young.size >= GENERATION_SIZE) {
      this.old = this.young;
      this.young = new Map();
    }
    this.young.set(key, prompt);
  }
}

/**
 * Writes plain values (what a JSON body parses to, and `undefined`) as text, each string after its
 * length (one text for one value, with nothing to escape); gives up on anything else.
 */
class KeyWriter {
  text = '';

  value(v: unknown): boolean {
    switch (typeof v) {
      case 'string':
        this.text += `${v.length}"${v}`;
        return this.text.length <= MAX_KEY_CHARS;
      case 'number':
        // -0 and the non-finite numbers print like other values.
        if (!Number.isFinite(v) || Object.is(v, -0)) return false;
        // Ended, or a number's digits could run into a string's length after it.
        this.text += `${v};`;
        return true;
      case 'boolean':
        this.text += v ? 't' : 'f';
        return true;
      case 'undefined':
        this.text += 'u';
        return true;
      case 'object':
        if (v === null) {
          this.text += 'n';
          return true;
        }
        return Array.isArray(v) ? this.array(v) : this.object(v);
      default:
        return false;
    }
  }

  private array(items: readonly unknown[]): boolean {
    this.text += '[';
    for (let i = 0; i < items.length; i++) if (!this.value(items[i])) return false;
    this.text += ']';
    return true;
  }

  private object(o: object): boolean {
    // A class instance may render by its own rules: only plain objects are written.
    const proto: unknown = Object.getPrototypeOf(o);
    if (proto !== Object.prototype && proto !== null) return false;
    this.text += '{';
    // A plain object inherits no enumerable key: for-in walks its own, in their order.
    for (const k in o) {
      this.text += `${k.length}"${k}`;
      if (!this.value((o as Record<string, unknown>)[k])) return false;
    }
    this.text += '}';
    return true;
  }
}
