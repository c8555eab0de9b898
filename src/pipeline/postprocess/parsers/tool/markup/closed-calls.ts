// A parser's calls released only once they closed: upstream keeps a call the stream cuts off out of
// the calls (DeepSeek's DSML). The inner parser streams; this holds each call's pieces until its
// end, and drops the call still open when the stream ends (the inner parser would close it).

import type { ToolCallParser, ToolCallParserFactory, ToolParseItem } from '../parser.js';

class ClosedCallsOnly implements ToolCallParser {
  /** The open call's pieces, held until it ends. */
  private open: ToolParseItem[] = [];

  constructor(private readonly inner: ToolCallParser) {}

  push(text: string): ToolParseItem[] {
    return this.sort(this.inner.push(text));
  }

  finish(): ToolParseItem[] {
    // Every call still open, or opened and closed only now, is one the stream cut off.
    const released = this.inner.finish().filter((item) => item.type === 'content');
    this.open = [];
    return released;
  }

  private sort(items: ToolParseItem[]): ToolParseItem[] {
    const out: ToolParseItem[] = [];
    for (const item of items) {
      if (item.type === 'content' && this.open.length === 0) out.push(item);
      else if (item.type === 'call_end') {
        out.push(...this.open, item);
        this.open = [];
      } else if (item.type === 'call_arguments' && this.open.at(-1)?.type === 'call_arguments') {
        // One piece per call: its fragments joined.
        const last = this.open.pop() as Extract<ToolParseItem, { type: 'call_arguments' }>;
        this.open.push({ ...last, fragment: last.fragment + item.fragment });
      } else this.open.push(item);
    }
    return out;
  }
}

export function closedCallsOnly(make: ToolCallParserFactory): ToolCallParserFactory {
  return (options) => new ClosedCallsOnly(make(options));
}
