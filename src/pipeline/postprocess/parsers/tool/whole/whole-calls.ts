// The engine for formats whose calls are released whole, each once its markup closes (Gemma 4,
// MiniMax-M3): their arguments are a grammar of their own, read in one go, and upstream keeps a
// call that never closes out of the calls (as text or dropped, by format). Content streams at once
// but for a tail that could still begin an opener.

import type { ToolCallParser, ToolCallParserOptions, ToolParseItem, ToolSpec, WholeCall } from '../parser.js';
import { HeldToolParser } from '../held-parser.js';

/** What a format read of a run of calls so far. */
export interface RunRead {
  /** The calls complete in it, in order. */
  calls: WholeCall[];
  /** How much of the text they, and what the format drops between them, used. */
  used: number;
  /** The run closed within the used text. */
  ended: boolean;
}

export interface WholeCallsFormat {
  /** Open a run of calls in the content. */
  readonly opens: readonly string[];
  /** Reads the run `opener` began from its text so far (the text after the opener and what was used). */
  read(opener: string, text: string, tools: readonly ToolSpec[]): RunRead;
  /** The stream ended inside a run: what is left of it is released as `content`, or dropped. */
  readonly unterminated: 'content' | 'drop';
}

type State = 'content' | 'run';

class WholeCallsParser extends HeldToolParser<State> {
  protected state: State = 'content';
  protected readonly steps: Record<State, () => boolean> = {
    content: () => this.stepContent(),
    run: () => this.stepRun(),
  };
  private opener = '';
  /** Nothing of the run was used yet: its opener is still text if the run is released. */
  private untouched = true;
  private readonly tools: readonly ToolSpec[];

  constructor(
    private readonly format: WholeCallsFormat,
    options: ToolCallParserOptions,
  ) {
    super(options);
    this.tools = options.tools;
  }

  override finish(): ToolParseItem[] {
    if (this.state === 'content') this.items.content(this.held);
    else if (this.format.unterminated === 'content') this.items.content((this.untouched ? this.opener : '') + this.held);
    this.held = '';
    this.state = 'content';
    return this.items.take();
  }

  private stepContent(): boolean {
    const hit = this.contentUntil(this.format.opens);
    if (hit === null) return false;
    this.opener = hit.marker;
    this.untouched = true;
    this.state = 'run';
    return true;
  }

  private stepRun(): boolean {
    const read = this.format.read(this.opener, this.held, this.tools);
    for (const call of read.calls) this.items.wholeCall(call);
    if (read.used > 0) this.untouched = false;
    this.held = this.held.slice(read.used);
    if (!read.ended) return false;
    this.state = 'content';
    return true;
  }
}

export function wholeCallsParser(format: WholeCallsFormat): (options: ToolCallParserOptions) => ToolCallParser {
  return (options) => new WholeCallsParser(format, options);
}
