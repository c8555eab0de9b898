// The items a tool-call parser gives, collected in order: content runs merged, calls counted and
// given ids, so each format's parser says only what it found.

import { randomUUID } from 'node:crypto';
import type { ToolCallParserOptions, ToolParseItem } from './tool-call-parser.js';

export class ToolItems {
  private out: ToolParseItem[] = [];
  private calls = 0;
  /** Members of the open call's arguments object given so far, when the parser builds the object. */
  private members = 0;
  private readonly newCallId: () => string;

  constructor(options: ToolCallParserOptions) {
    this.newCallId = options.newCallId ?? (() => `call-${randomUUID()}`);
  }

  content(text: string): void {
    if (text === '') return;
    const last = this.out[this.out.length - 1];
    if (last?.type === 'content') last.text += text;
    else this.out.push({ type: 'content', text });
  }

  startCall(name: string): void {
    this.members = 0;
    this.out.push({ type: 'call_start', index: this.calls, id: this.newCallId(), name });
  }

  fragment(text: string): void {
    if (text !== '') this.out.push({ type: 'call_arguments', index: this.calls, fragment: text });
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
    this.out.push({ type: 'call_end', index: this.calls });
    this.calls += 1;
  }

  /** What was collected since the last take. */
  take(): ToolParseItem[] {
    const out = this.out;
    this.out = [];
    return out;
  }
}
