// The pythonic tool-call format (Llama 4 and others): `[get_weather(city="Paris", days=3), now()]`,
// optionally between `<|python_start|>` and `<|python_end|>`, which are dropped as upstream does.
// A call starts once `name(` is read; each keyword argument becomes one `"key":value` piece of the
// arguments object as soon as its value is whole. A `[` that does not open a list of calls is
// content; a call that breaks off (positional arguments, an expression) ends with what it has and
// the text from the defect on is content.

import type { ToolCallParser, ToolCallParserOptions, ToolParseItem } from './parser.js';
import { HeldToolParser } from './held-parser.js';
import { INCOMPLETE, readLiteral, skipSpace } from './python-literal.js';

const PYTHON_TAGS = ['<|python_start|>', '<|python_end|>'];
const LIST_OPEN = '[';
const CALL_OPEN = /^\s*([A-Za-z_]\w*)\s*\(/;
const KEYWORD = /^\s*([A-Za-z_]\w*)\s*=/;
/** Text that may yet grow into a name and its `(`, or a keyword and its `=`. */
const MAY_GROW = /^\s*(?:[A-Za-z_]\w*\s*)?$/;
const CALL_CLOSE = /^\s*\)/;
const NEXT_CALL = /^\s*,/;
const LIST_CLOSE = /^\s*\]/;
/** A name or keyword no longer than this that has not ended is not one. */
const MAX_WORD = 256;

type State = 'content' | 'name' | 'arguments' | 'afterCall';

export class PythonicToolParser extends HeldToolParser<State> {
  /** The `[` of a list that has no call yet, released as content if none comes. */
  private raw = '';
  protected state: State = 'content';
  protected readonly steps: Record<State, () => boolean> = {
    content: () => this.stepContent(),
    name: () => this.stepName(),
    arguments: () => this.stepArguments(),
    afterCall: () => this.stepAfterCall(),
  };

  override finish(): ToolParseItem[] {
    if (this.state === 'arguments') this.closeCall();
    if (this.state === 'content' || this.state === 'name') this.items.content(this.raw + this.held);
    this.held = '';
    this.raw = '';
    this.state = 'content';
    return this.items.take();
  }

  private stepContent(): boolean {
    const hit = this.contentUntil([LIST_OPEN, ...PYTHON_TAGS]);
    if (hit === null) return false;
    if (hit.marker === LIST_OPEN) {
      this.raw = LIST_OPEN;
      this.state = 'name';
    }
    return true;
  }

  private stepName(): boolean {
    const open = CALL_OPEN.exec(this.held);
    if (open === null) {
      if (MAY_GROW.test(this.held) && this.held.length <= MAX_WORD) return false;
      // Not a call: the list (if any) is content from here on.
      this.items.content(this.raw);
      this.raw = '';
      this.state = 'content';
      return true;
    }
    this.raw = '';
    this.held = this.held.slice(open[0].length);
    this.items.startCall(open[1] ?? '');
    this.state = 'arguments';
    return true;
  }

  private stepArguments(): boolean {
    const close = CALL_CLOSE.exec(this.held);
    if (close !== null) {
      this.held = this.held.slice(close[0].length);
      this.closeCall();
      return true;
    }
    const keyword = KEYWORD.exec(this.held);
    if (keyword === null) {
      if (MAY_GROW.test(this.held) && this.held.length <= MAX_WORD) return false;
      return this.broken();
    }
    const value = readLiteral(this.held, keyword[0].length);
    if (value === INCOMPLETE) return false;
    if (typeof value === 'symbol') return this.broken();
    const after = skipSpace(this.held, value.end);
    if (after >= this.held.length) return false;
    const next = this.held[after];
    if (next !== ',' && next !== ')') return this.broken();
    this.items.member(keyword[1] ?? '', value.value);
    this.held = this.held.slice(next === ',' ? after + 1 : after);
    return true;
  }

  private stepAfterCall(): boolean {
    const next = NEXT_CALL.exec(this.held) ?? LIST_CLOSE.exec(this.held);
    if (next === null) {
      if (this.held.trim() === '') return false;
      this.state = 'content';
      return true;
    }
    this.held = this.held.slice(next[0].length);
    this.state = next[0].trim() === ',' ? 'name' : 'content';
    return true;
  }

  /** The call ends with the arguments it has; the rest is content. */
  private broken(): boolean {
    this.closeCall();
    this.state = 'content';
    return true;
  }

  private closeCall(): void {
    this.items.endBuiltCall();
    this.state = 'afterCall';
  }

}

export const pythonicToolCallParser = (options: ToolCallParserOptions): ToolCallParser => new PythonicToolParser(options);
