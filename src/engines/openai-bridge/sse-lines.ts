// The `data:` payloads of a server-sent event stream, as the OpenAI-compatible servers write them
// (vLLM, SGLang, llama.cpp, Ollama): one JSON object per event, `[DONE]` at the end. Read from the
// response's bytes as they come: only whole lines are decoded, so a character split between two
// reads stays whole, and a line costs one search and one decode.

const LF = 0x0a;
const CR = 0x0d;
const EMPTY = Buffer.alloc(0);

/** Splits pushed bytes into events and gives each event's data (its `data:` lines joined). */
export class SseDataReader {
  /** The bytes of a line not yet ended. */
  private rest: Buffer = EMPTY;
  /** The first data line of the event being read (most events have one: no array per event). */
  private first: string | null = null;
  /** Its further data lines. */
  private more: string[] | null = null;
  private done = false;

  /** `onData` gets each event's data; `[DONE]` ends the stream (nothing after it is given). */
  constructor(private readonly onData: (data: string) => void) {}

  /** True once `[DONE]` was read. */
  get isDone(): boolean {
    return this.done;
  }

  push(chunk: Buffer): void {
    if (this.done) return;
    const bytes = this.rest.length === 0 ? chunk : Buffer.concat([this.rest, chunk]);
    let start = 0;
    for (let eol = bytes.indexOf(LF); eol >= 0 && !this.done; eol = bytes.indexOf(LF, start)) {
      this.line(bytes, start, eol > start && bytes[eol - 1] === CR ? eol - 1 : eol);
      start = eol + 1;
    }
    this.rest = this.done || start === bytes.length ? EMPTY : bytes.subarray(start);
  }

  /** The stream ended: a last event the server did not terminate is given. */
  end(): void {
    if (this.done) return;
    const rest = this.rest;
    this.rest = EMPTY;
    if (rest.length > 0) this.line(rest, 0, rest[rest.length - 1] === CR ? rest.length - 1 : rest.length);
    this.dispatch();
  }

  private line(bytes: Buffer, start: number, end: number): void {
    if (start === end) {
      this.dispatch();
      return;
    }
    // `data:` (0x64 0x61 0x74 0x61 0x3a), then an optional space.
    if (end - start < 5 || bytes[start] !== 0x64 || bytes[start + 1] !== 0x61 || bytes[start + 2] !== 0x74 || bytes[start + 3] !== 0x61 || bytes[start + 4] !== 0x3a) return;
    const from = bytes[start + 5] === 0x20 ? start + 6 : start + 5;
    const text = bytes.toString('utf8', from, end);
    if (this.first === null) this.first = text;
    else (this.more ??= []).push(text);
  }

  private dispatch(): void {
    const first = this.first;
    if (first === null) return;
    const more = this.more;
    this.first = null;
    this.more = null;
    const event = more ? `${first}\n${more.join('\n')}` : first;
    if (event === '[DONE]') {
      this.done = true;
      return;
    }
    this.onData(event);
  }
}
