// Tool calls of a request whose `tool_choice` was carried to the engine as guided decoding
// (reference/http.md §8.3 point 3): the output is constrained JSON, whatever the model's own format,
// so it is parsed as that JSON and needs no parser in the card. `required`: an array of
// `{"name", "parameters"}` objects, one call each. A named function: the arguments object itself,
// one call of that function.

import { JsonValueScanner } from './json-value-scanner.js';
import type { ToolCallParserFactory } from '../parser.js';
import { JsonToolCallParser } from './json-framed.js';
import { JsonCallListReader, type CallBodyReader, type CallEvent, type CallReaderState } from './json-stream.js';

/** `tool_choice: "required"`: `[{"name": …, "parameters": {…}}, …]` (a lone object is accepted too). */
export const requiredToolCallParser: ToolCallParserFactory = (options) =>
  new JsonToolCallParser({ starts: [], ends: [], body: () => new JsonCallListReader(true), bareAtStart: true }, options);

/** `tool_choice: {"type": "function", "function": {"name"}}`: the output is that function's arguments object. */
export function namedToolCallParser(name: string): ToolCallParserFactory {
  return (options) => new JsonToolCallParser({ starts: [], ends: [], body: () => new ArgumentsObjectReader(name), bareAtStart: true }, options);
}

/** Reads one JSON object as the arguments of a call to `name`, streaming it as it is checked. */
class ArgumentsObjectReader implements CallBodyReader {
  state: CallReaderState = 'reading';
  private readonly scanner = new JsonValueScanner();
  private started = false;

  constructor(private readonly name: string) {}

  feed(text: string, out: CallEvent[]): number {
    let at = 0;
    while (at < text.length && this.state === 'reading') {
      const ch = text[at]!;
      if (!this.started) {
        // The parser opens the body at its first non-blank character.
        if (ch !== '{') {
          this.state = 'not_call';
          break;
        }
        this.started = true;
        out.push({ type: 'name', name: this.name });
      }
      const step = this.scanner.step(ch);
      if (step === 'error') {
        this.close(out, 'broken');
        break;
      }
      appendArguments(out, ch);
      at += 1;
      if (step === 'done') this.close(out, 'complete');
    }
    return at;
  }

  finish(out: CallEvent[]): void {
    if (this.state !== 'reading') return;
    if (this.started) this.close(out, 'broken');
    else this.state = 'not_call';
  }

  leftover(): string {
    return '';
  }

  private close(out: CallEvent[], state: CallReaderState): void {
    out.push({ type: 'end' });
    this.state = state;
  }
}

/** Adds one character to the call's arguments, joined to the fragment before it. */
function appendArguments(out: CallEvent[], ch: string): void {
  const last = out[out.length - 1];
  if (last?.type === 'arguments') last.fragment += ch;
  else out.push({ type: 'arguments', fragment: ch });
}
