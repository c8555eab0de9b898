// Collects one push's items: adjacent content is merged, and a body reader's call events become
// numbered calls with ids. Shared by every tool-call parser so numbering and ids are made once.

import { randomUUID } from 'node:crypto';
import type { ToolParseItem } from './parser.js';
import type { CallEvent } from './json/index.js';

export function upstreamCallId(): string {
  return `call-${randomUUID()}`;
}

/** Numbers a choice's calls across pushes; `sink()` starts one push's list. */
export class CallNumbering {
  private calls = 0;

  constructor(private readonly newCallId: () => string) {}

  sink(): ItemSink {
    return new ItemSink(this);
  }

  /** The index of the call being written, and once it ends, of the next one. */
  get current(): number {
    return this.calls;
  }

  /** `id`: the one the format gives the call (Kimi K3 names its calls), else a new one. */
  start(id?: string): { index: number; id: string } {
    return { index: this.calls, id: id ?? this.newCallId() };
  }

  end(): number {
    this.calls += 1;
    return this.calls - 1;
  }
}

export class ItemSink {
  readonly items: ToolParseItem[] = [];

  constructor(private readonly numbering: CallNumbering) {}

  content(text: string): void {
    if (text === '') return;
    const last = this.items[this.items.length - 1];
    if (last?.type === 'content') last.text += text;
    else this.items.push({ type: 'content', text });
  }

  callStart(name: string, id?: string): void {
    this.items.push({ type: 'call_start', ...this.numbering.start(id), name });
  }

  callArguments(fragment: string): void {
    if (fragment === '') return;
    const index = this.numbering.current;
    const last = this.items[this.items.length - 1];
    if (last?.type === 'call_arguments' && last.index === index) last.fragment += fragment;
    else this.items.push({ type: 'call_arguments', index, fragment });
  }

  callEnd(): void {
    this.items.push({ type: 'call_end', index: this.numbering.end() });
  }

  /** A body reader's events, in order. */
  events(events: readonly CallEvent[]): void {
    for (const event of events) {
      if (event.type === 'name') this.callStart(event.name);
      else if (event.type === 'arguments') this.callArguments(event.fragment);
      else this.callEnd();
    }
  }
}
