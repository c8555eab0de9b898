// Mistral's call bodies: the JSON list (`[{"name": …, "arguments": …}]`) of older models, or the
// `name[ARGS]{…}` form of newer ones (one call per `[TOOL_CALLS]`), told apart by the first character.

import { isJsonWhitespace, JsonValueScanner } from './json-value-scanner.js';
import { JsonCallListReader, type CallBodyReader, type CallEvent, type CallReaderState } from './json-stream.js';

const ARGS_MARKER = '[ARGS]';
const NAME_CHAR = /[A-Za-z0-9_.-]/;

export class MistralNamedCallReader implements CallBodyReader {
  state: CallReaderState = 'reading';
  private json: JsonCallListReader | null = null;
  private raw = '';
  private name = '';
  private marker = '';
  private scanner: JsonValueScanner | null = null;
  private given = false;

  feed(text: string, out: CallEvent[]): number {
    if (this.json !== null) return this.fromJson(this.json.feed(text, out));
    for (let i = 0; i < text.length; i++) {
      const ch = text[i]!;
      if (this.scanner === null && this.name === '' && (ch === '{' || ch === '[')) {
        this.json = new JsonCallListReader(true);
        return i + this.fromJson(this.json.feed(text.slice(i), out));
      }
      const taken = this.take(ch, out);
      if (taken) this.raw += ch;
      if (this.state !== 'reading') return taken ? i + 1 : i;
    }
    return text.length;
  }

  finish(out: CallEvent[]): void {
    if (this.json !== null) {
      this.json.finish(out);
      this.state = this.json.state;
    } else if (this.state === 'reading') {
      this.stop(this.scanner?.isComplete ? 'complete' : 'broken', out);
    }
  }

  leftover(): string {
    if (this.json !== null) return this.json.leftover();
    return this.state === 'not_call' ? this.raw : '';
  }

  private fromJson(taken: number): number {
    this.state = this.json!.state;
    return taken;
  }

  private take(ch: string, out: CallEvent[]): boolean {
    if (this.scanner === null) return this.nameChar(ch, out);
    if (!this.given && isJsonWhitespace(ch)) return true;
    const step = this.scanner.step(ch);
    if (step === 'error') return this.stop('broken', out);
    if (step === 'ended') return this.stop('complete', out);
    this.given = true;
    const last = out[out.length - 1];
    if (last?.type === 'arguments') last.fragment += ch;
    else out.push({ type: 'arguments', fragment: ch });
    if (step === 'done') this.stop('complete', out);
    return true;
  }

  /** `name[ARGS]`: the name once the marker is complete; anything else is not this form. */
  private nameChar(ch: string, out: CallEvent[]): boolean {
    if (this.name === '' && this.marker === '' && isJsonWhitespace(ch)) return true;
    if (this.marker === '' && NAME_CHAR.test(ch)) {
      this.name += ch;
      return true;
    }
    if (this.name === '' || ARGS_MARKER[this.marker.length] !== ch) {
      this.state = 'not_call';
      return false;
    }
    this.marker += ch;
    if (this.marker === ARGS_MARKER) {
      out.push({ type: 'name', name: this.name });
      this.scanner = new JsonValueScanner();
    }
    return true;
  }

  /** Ends the call (or finds there was none); returns false: a stopping character is not taken. */
  private stop(state: 'complete' | 'broken', out: CallEvent[]): boolean {
    if (this.scanner === null) {
      this.state = 'not_call';
      return false;
    }
    if (!this.given) out.push({ type: 'arguments', fragment: '{}' });
    out.push({ type: 'end' });
    this.state = state;
    return false;
  }
}
