// The streaming JSON engine of the JSON tool-call formats: fed the text of a call body (one
// `{"name", "arguments"}` object, or an array of them), it reports each call's name once it is
// complete and the raw text of its arguments as each character is checked, so a client
// concatenating the fragments gets exactly the arguments JSON the model wrote.
//
// Decisions (docs/design-notes.md, "Tool-call parsers"):
// - Text that is not a call (not JSON, or an object that closes without a string `name`) is not a
//   call at all: the reader stops with state `not_call` and `leftover()` gives the text to release
//   as content.
// - Once a call has started (its name was reported), a later defect closes the call with the
//   fragments already given (the client decides, as for arguments failing the tool's schema); the
//   state is `broken` and the text from the defect on is left to the caller.
// - Arguments written before the name are held until the name is known.
// - Arguments given as a JSON string (double-encoded) are given as that string's content.
// - A call without arguments gets `{}`.
// - The OpenAI shape `{"type": "function", "function": {"name", "arguments"}}` is read through its
//   `function` object, which is the call.

import { isJsonWhitespace, JsonValueScanner } from './json-value-scanner.js';

/** What a body reader found, in order: a call's events always run name → arguments* → end. */
export type CallEvent = { type: 'name'; name: string } | { type: 'arguments'; fragment: string } | { type: 'end' };

/**
 * `reading`: wants more text; `complete`: the body closed well; `broken`: a call had started and the
 * text went wrong (the call is closed); `not_call`: nothing here was a call.
 */
export type CallReaderState = 'reading' | 'complete' | 'broken' | 'not_call';

export interface CallBodyReader {
  readonly state: CallReaderState;
  /** Reads from `text` until the body ends or breaks; returns how many characters it took. */
  feed(text: string, out: CallEvent[]): number;
  /** The stream ended: a started call is closed with what it has, anything else is not a call. */
  finish(out: CallEvent[]): void;
  /** Text taken that belongs to no call, to release as content once the state is not `reading`. */
  leftover(): string;
}

const NAME_KEYS = new Set(['name']);
const ARGUMENT_KEYS = new Set(['arguments', 'parameters']);
/** The key of the OpenAI shape's inner call object. */
const FUNCTION_KEY = 'function';

type ObjectStep = 'open' | 'key-or-end' | 'key' | 'in-key' | 'colon' | 'value-start' | 'in-value' | 'comma-or-end';
type ValueRole = 'name' | 'arguments' | 'arguments-string' | 'function' | 'other';

/**
 * One call object: `{"name": "...", "arguments": {...}}`, keys in any order, other keys ignored; or
 * the OpenAI shape, whose `function` object is read as the call.
 */
export class JsonCallReader implements CallBodyReader {
  state: CallReaderState = 'reading';
  private step: ObjectStep = 'open';
  private raw = '';
  private scanner = new JsonValueScanner();
  private keyText = '';
  private valueText = '';
  private role: ValueRole = 'other';
  private named = false;
  private argumentsSeen = false;
  private heldArguments = '';
  private givenArguments = 0;
  /** A pending escape of a double-encoded arguments string. */
  private escape = '';
  /** Reads the `function` object of the OpenAI shape; the call is its. */
  private inner: JsonCallReader | null = null;
  /** The call's end was reported (by this reader or by `inner`). */
  private ended = false;

  feed(text: string, out: CallEvent[]): number {
    for (let i = 0; i < text.length; i++) {
      const ch = text[i]!;
      const taken = this.take(ch, out);
      if (taken) this.raw += ch;
      if (this.state !== 'reading') return taken ? i + 1 : i;
    }
    return text.length;
  }

  finish(out: CallEvent[]): void {
    if (this.state !== 'reading') return;
    if (this.step === 'in-value' && this.role === 'function') {
      this.inner!.finish(out);
      this.adoptInner();
    }
    if (this.step === 'in-value' && this.role === 'name' && this.scanner.isComplete) this.nameValue(out);
    this.stop(out);
  }

  leftover(): string {
    return this.state === 'not_call' ? this.raw : '';
  }

  /** Handles one character; false when it is not part of the object (the reader has stopped). */
  private take(ch: string, out: CallEvent[]): boolean {
    switch (this.step) {
      case 'open':
        if (isJsonWhitespace(ch)) return true;
        if (ch !== '{') return this.stop(out);
        this.step = 'key-or-end';
        return true;
      case 'key-or-end':
      case 'key':
        if (isJsonWhitespace(ch)) return true;
        if (ch === '}' && this.step === 'key-or-end') return this.close(out);
        if (ch !== '"') return this.stop(out);
        this.step = 'in-key';
        this.scanner = new JsonValueScanner();
        this.keyText = '';
        return this.keyChar(ch, out);
      case 'in-key':
        return this.keyChar(ch, out);
      case 'colon':
        if (isJsonWhitespace(ch)) return true;
        if (ch !== ':') return this.stop(out);
        this.step = 'value-start';
        return true;
      case 'value-start':
        if (isJsonWhitespace(ch)) return true;
        this.startValue(ch);
        return this.valueChar(ch, out);
      case 'in-value':
        return this.valueChar(ch, out);
      case 'comma-or-end':
        if (isJsonWhitespace(ch)) return true;
        if (ch === ',') {
          this.step = 'key';
          return true;
        }
        return ch === '}' ? this.close(out) : this.stop(out);
    }
  }

  private keyChar(ch: string, out: CallEvent[]): boolean {
    const result = this.scanner.step(ch);
    if (result === 'error') return this.stop(out);
    this.keyText += ch;
    if (result === 'done') this.step = 'colon';
    return true;
  }

  private startValue(ch: string): void {
    const key = JSON.parse(this.keyText) as string;
    this.scanner = new JsonValueScanner();
    this.valueText = '';
    this.step = 'in-value';
    if (NAME_KEYS.has(key) && !this.named) this.role = 'name';
    else if (ARGUMENT_KEYS.has(key) && !this.argumentsSeen && !this.ended) {
      this.argumentsSeen = true;
      this.role = ch === '"' ? 'arguments-string' : 'arguments';
    } else if (key === FUNCTION_KEY && ch === '{' && !this.named && !this.argumentsSeen) {
      this.role = 'function';
      this.inner = new JsonCallReader();
    } else this.role = 'other';
  }

  private valueChar(ch: string, out: CallEvent[]): boolean {
    if (this.role === 'function') return this.innerChar(ch, out);
    const result = this.scanner.step(ch);
    if (result === 'error') return this.stop(out);
    if (result === 'ended') {
      this.step = 'comma-or-end';
      return this.take(ch, out);
    }
    if (this.role === 'name') this.valueText += ch;
    else if (this.role === 'arguments') this.giveArguments(ch, out);
    else if (this.role === 'arguments-string') this.giveStringArguments(ch, result, out);
    if (result === 'done') {
      this.step = 'comma-or-end';
      if (this.role === 'name' && !this.nameValue(out)) return this.stop(out);
    }
    return true;
  }

  /** A character of the `function` object, read by `inner`; this object goes on once it closed. */
  private innerChar(ch: string, out: CallEvent[]): boolean {
    const inner = this.inner!;
    const taken = inner.feed(ch, out) === 1;
    if (inner.state === 'reading') return taken;
    this.adoptInner();
    if (inner.state !== 'complete') return this.stop(out) || taken;
    this.step = 'comma-or-end';
    return taken;
  }

  /** The call `inner` read (if it was one) is this object's call. */
  private adoptInner(): void {
    const inner = this.inner!;
    if (inner.state === 'not_call') return;
    this.named = true;
    this.ended = true;
  }

  /** The name value is complete: a string names the call, anything else means this is not a call. */
  private nameValue(out: CallEvent[]): boolean {
    const name: unknown = JSON.parse(this.valueText);
    if (typeof name !== 'string') return false;
    this.named = true;
    out.push({ type: 'name', name });
    if (this.heldArguments !== '') this.emitArguments(this.heldArguments, out);
    this.heldArguments = '';
    return true;
  }

  private giveStringArguments(ch: string, result: 'more' | 'done', out: CallEvent[]): void {
    if (this.valueText === '') {
      this.valueText = ch; // the opening quote
      return;
    }
    if (result === 'done') return; // the closing quote
    if (this.escape === '' && ch !== '\\') return this.giveArguments(ch, out);
    this.escape += ch;
    const length = this.escape[1] === 'u' ? 6 : 2;
    if (this.escape.length < length) return;
    this.giveArguments(JSON.parse(`"${this.escape}"`) as string, out);
    this.escape = '';
  }

  private giveArguments(text: string, out: CallEvent[]): void {
    if (this.named) this.emitArguments(text, out);
    else this.heldArguments += text;
  }

  private emitArguments(fragment: string, out: CallEvent[]): void {
    const last = out[out.length - 1];
    if (last?.type === 'arguments') last.fragment += fragment;
    else out.push({ type: 'arguments', fragment });
    this.givenArguments += fragment.length;
  }

  /** The object closed (the brace is taken): a call if it was named. */
  private close(out: CallEvent[]): boolean {
    if (this.named) this.endCall(out);
    this.state = this.named ? 'complete' : 'not_call';
    return true;
  }

  /** The text went wrong, or the stream ended, here. Returns false: the character is not taken. */
  private stop(out: CallEvent[]): boolean {
    if (!this.named) {
      this.state = 'not_call';
      return false;
    }
    this.endCall(out);
    this.state = 'broken';
    return false;
  }

  private endCall(out: CallEvent[]): void {
    if (this.ended) return;
    this.ended = true;
    if (this.givenArguments === 0) this.emitArguments('{}', out);
    out.push({ type: 'end' });
  }
}

type ListStep = 'open' | 'item-or-end' | 'item' | 'in-item' | 'comma-or-end';

/** An array of call objects (`[{...}, {...}]`), or with `bareObject` also a single call object. */
export class JsonCallListReader implements CallBodyReader {
  state: CallReaderState = 'reading';
  private step: ListStep = 'open';
  private item: JsonCallReader | null = null;
  private calls = 0;
  /** The body is one bare object, not an array. */
  private single = false;
  /** Text taken since the last call ended: released if the list goes wrong. */
  private sinceCall = '';

  constructor(private readonly bareObject = false) {}

  feed(text: string, out: CallEvent[]): number {
    let at = 0;
    while (at < text.length && this.state === 'reading') {
      if (this.step === 'in-item') {
        at += this.feedItem(text.slice(at), out);
        continue;
      }
      // A character not taken either starts an item (fed next round) or ends the reading.
      const ch = text[at]!;
      if (this.take(ch)) {
        this.sinceCall += ch;
        at += 1;
      }
    }
    return at;
  }

  finish(out: CallEvent[]): void {
    if (this.state !== 'reading') return;
    if (this.item !== null && this.step === 'in-item') {
      this.item.finish(out);
      if (this.item.state === 'broken') return void (this.state = 'broken');
      this.sinceCall += this.item.leftover();
    }
    this.state = this.calls > 0 ? 'broken' : 'not_call';
  }

  leftover(): string {
    return this.state === 'not_call' || this.state === 'broken' ? this.sinceCall : '';
  }

  private take(ch: string): boolean {
    if (isJsonWhitespace(ch)) return true;
    switch (this.step) {
      case 'open':
        if (ch === '[') this.step = 'item-or-end';
        else if (ch === '{' && this.bareObject) return this.startItem(true);
        else return this.fail();
        return true;
      case 'item-or-end':
      case 'item':
        if (ch === ']' && this.step === 'item-or-end') return this.end();
        return ch === '{' ? this.startItem(false) : this.fail();
      case 'comma-or-end':
        if (ch === ',') {
          this.step = 'item';
          return true;
        }
        return ch === ']' ? this.end() : this.fail();
      default:
        return this.fail();
    }
  }

  /** An item begins at `{`; the brace is given to the item, not taken here. */
  private startItem(single: boolean): false {
    this.item = new JsonCallReader();
    this.step = 'in-item';
    this.single = single;
    return false;
  }

  private feedItem(text: string, out: CallEvent[]): number {
    const item = this.item!;
    const taken = item.feed(text, out);
    if (item.state === 'reading') return taken;
    if (item.state === 'not_call') {
      this.sinceCall += item.leftover();
      this.state = this.calls > 0 ? 'broken' : 'not_call';
      return taken;
    }
    this.calls += 1;
    this.sinceCall = '';
    if (item.state === 'broken') this.state = 'broken';
    else if (this.single) this.state = 'complete';
    else this.step = 'comma-or-end';
    return taken;
  }

  private end(): true {
    this.state = 'complete';
    this.sinceCall = '';
    return true;
  }

  private fail(): false {
    this.state = this.calls > 0 ? 'broken' : 'not_call';
    return false;
  }
}
