// The items of the marker formats' parsers, collected over a push and taken at its end, on the
// shared numbering and sink (call-items.ts); plus the arguments object these formats build
// from named parameters, one `"key":value` member at a time.

import type { ToolCallParserOptions, ToolParseItem, WholeCall } from './parser.js';
import { CallNumbering, type ItemSink, upstreamCallId } from './call-items.js';

export class ToolItems {
  private readonly numbering: CallNumbering;
  private sink: ItemSink;
  /** Members of the open call's arguments object given so far, when the parser builds the object. */
  private members = 0;

  constructor(options: ToolCallParserOptions) {
    this.numbering = new CallNumbering(options.newCallId ?? upstreamCallId);
    this.sink = this.numbering.sink();
  }

  content(text: string): void {
    this.sink.content(text);
  }

  startCall(name: string, id?: string): void {
    this.members = 0;
    this.sink.callStart(name, id);
  }

  /** A call read whole: its start, its arguments JSON in one piece, its end. */
  wholeCall(call: WholeCall): void {
    this.startCall(call.name, call.id);
    this.fragment(call.arguments);
    this.endCall();
  }

  fragment(text: string): void {
    this.sink.callArguments(text);
  }

  /** One `"key":value` member of an arguments object the parser builds from named parameters. */
  member(key: string, value: unknown): void {
    this.fragment(`${this.members === 0 ? '{' : ','}${JSON.stringify(key)}:${JSON.stringify(value)}`);
    this.members += 1;
  }

  /** Closes the built arguments object (`{}` when it had no member) and the call. */
  endBuiltCall(): void {
    this.fragment(this.members === 0 ? '{}' : '}');
    this.endCall();
  }

  endCall(): void {
    this.sink.callEnd();
  }

  /** What was collected since the last take. */
  take(): ToolParseItem[] {
    const items = this.sink.items;
    this.sink = this.numbering.sink();
    return items;
  }
}
