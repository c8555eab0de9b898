// The engine for every tool-call format written as markers around a name and its arguments
// (markup-format.ts). Content streams at once but for a tail that could still begin a marker;
// a call streams as soon as its name is known, its arguments as they come (raw JSON as written,
// parameters one `"key":value` piece each as it completes). Markup that turns out not to be a call
// (no name, arguments that are not a JSON object, junk where a call must start) is released as the
// content it was.

import { JsonValueScanner } from '../json/index.js';
import { firstMarker, partialMarkerLength } from '../../marker-scan.js';
import type { ToolCallParser, ToolCallParserOptions, ToolParseItem, ToolSpec } from '../parser.js';
import { HeldToolParser } from '../held-parser.js';
import type { ParameterArgumentsMarkup, ParameterKey, ToolMarkupFormat } from './markup-format.js';
import { jsonOr, parameterType, typedValue } from './parameter-value.js';

type State =
  | 'content'
  | 'section'
  | 'name'
  | 'opening'
  | 'jsonLead'
  | 'json'
  | 'closing'
  | 'parameters'
  | 'key'
  | 'valueOpen'
  | 'value'
  | 'discard';

/** A name no longer than this that has not ended is not a name. */
const MAX_NAME = 256;
const NAME = /^[\p{L}\p{N}_.\-:/]+$/u;

function stripQuotes(text: string): string {
  const trimmed = text.trim();
  return trimmed.length >= 2 && trimmed.startsWith('"') && trimmed.endsWith('"') ? trimmed.slice(1, -1) : trimmed;
}

/** One leading and one trailing newline are layout around a value (`<parameter=k>\nv\n</parameter>`). */
function stripLayout(text: string): string {
  return text.replace(/^\r?\n/, '').replace(/\r?\n$/, '');
}

const XML_ENTITIES: Record<string, string> = { '&lt;': '<', '&gt;': '>', '&quot;': '"', '&apos;': "'", '&amp;': '&' };

function decodeXmlEntities(text: string): string {
  return text.replace(/&(?:lt|gt|quot|apos|amp);/g, (entity) => XML_ENTITIES[entity] ?? entity);
}

export class ToolMarkupParser extends HeldToolParser<State> {
  /** Markup consumed since the current block began, released as content if it is not a call after all. */
  private raw = '';
  protected state: State = 'content';
  protected readonly steps: Record<State, () => boolean> = {
    content: () => this.stepContent(),
    section: () => this.stepSection(),
    name: () => this.stepName(),
    opening: () => this.skipTo(this.format.argumentsStart ?? '', () => this.beginArguments()),
    jsonLead: () => this.stepJsonLead(),
    json: () => this.stepJson(),
    closing: () => this.skipTo(this.format.callEnd, () => this.afterCall()),
    parameters: () => this.stepParameters(),
    key: () => this.stepKey(),
    valueOpen: () => this.skipTo(this.parameterMarkup().valueStart ?? '', () => (this.state = 'value')),
    value: () => this.stepValue(),
    discard: () => this.stepDiscard(),
  };
  private name = '';
  private key: ParameterKey = { key: '' };
  /** The call being read opened without its section (`bareCalls`). */
  private bare = false;
  /** Checks raw JSON arguments as they come, to end them where the object ends. */
  private scanner = new JsonValueScanner();
  private readonly tools: readonly ToolSpec[];

  /** What opens markup in content: the section, and with `bareCalls` a call alone. */
  private readonly contentMarkers: readonly string[];

  constructor(
    private readonly format: ToolMarkupFormat,
    options: ToolCallParserOptions,
  ) {
    super(options);
    this.tools = options.tools;
    const section = format.section?.starts;
    this.contentMarkers =
      section === undefined ? format.callStarts : format.bareCalls === true ? [...section, ...format.callStarts] : section;
  }

  override finish(): ToolParseItem[] {
    const rest = this.held;
    this.held = '';
    switch (this.state) {
      case 'content':
        this.items.content(rest);
        break;
      case 'section':
        // A section left open after its calls leaves only layout (or a cut marker) behind.
        if ((this.raw + rest).trim() !== '') this.release(this.raw + rest);
        break;
      case 'name':
      case 'opening':
      case 'jsonLead':
        this.release(this.raw + rest);
        break;
      case 'json':
        this.held = rest;
        if (!this.releaseArguments(rest)) this.endCall();
        this.held = '';
        break;
      case 'value':
        this.parameter(rest);
        this.closeParameters();
        break;
      case 'closing':
      case 'discard':
        break;
      case 'parameters':
      case 'key':
      case 'valueOpen':
        this.closeParameters();
        break;
    }
    this.raw = '';
    this.state = 'content';
    return this.items.take();
  }

  private stepContent(): boolean {
    const hit = this.contentUntil(this.contentMarkers);
    if (hit === null) return false;
    this.raw = hit.marker;
    this.bare = this.format.section !== undefined && this.format.callStarts.includes(hit.marker);
    this.state = this.format.section === undefined || this.bare ? 'name' : 'section';
    return true;
  }

  /** Between the calls of a section: only layout may come before the next call or the section's end. */
  private stepSection(): boolean {
    const ends = this.format.section?.ends ?? [];
    const markers = [...this.format.callStarts, ...ends];
    const hit = firstMarker(this.held, markers);
    const before = hit === null ? this.held.slice(0, this.held.length - partialMarkerLength(this.held, markers)) : this.held.slice(0, hit.index);
    if (before.trim() !== '') return this.malformed();
    this.consume(before.length);
    if (hit === null) return false;
    this.consume(hit.marker.length);
    if (ends.includes(hit.marker)) {
      this.raw = '';
      this.state = 'content';
    } else {
      this.state = 'name';
    }
    return true;
  }

  private stepName(): boolean {
    const hit = firstMarker(this.held, this.format.nameEnds);
    if (hit === null) return this.held.length > MAX_NAME ? this.malformed() : false;
    const raw = this.held.slice(0, hit.index);
    const name = (this.format.cleanName ?? ((text: string) => text.trim()))(raw);
    if (!NAME.test(name) || !this.knownName(name)) return this.malformed();
    this.name = name;
    this.consume(raw.length);
    if (this.format.argumentsStart !== undefined) this.state = 'opening';
    else this.beginArguments();
    return true;
  }

  private beginArguments(): void {
    if (this.format.arguments.kind === 'json') {
      this.state = 'jsonLead';
      return;
    }
    this.startCall();
    this.state = 'parameters';
  }

  /** Raw JSON arguments must open an object; the call starts with it. */
  private stepJsonLead(): boolean {
    const lead = this.held.length - this.held.trimStart().length;
    this.consume(lead);
    if (this.held.length === 0) return false;
    if (!this.held.startsWith('{')) return this.malformed();
    this.startCall();
    this.scanner = new JsonValueScanner();
    this.state = 'json';
    return true;
  }

  /** Releases the arguments as the scanner checks them, up to the call's end marker or the object's end. */
  private stepJson(): boolean {
    const end = this.format.callEnd;
    const index = this.held.indexOf(end);
    const scannable = index >= 0 ? index : this.held.length - partialMarkerLength(this.held, [end]);
    if (this.releaseArguments(this.held.slice(0, scannable))) return true;
    if (index < 0) return false;
    // The end marker came before the object closed: the call ends with what it has.
    this.closeArguments();
    return true;
  }

  /** Releases what of `text` continues the arguments; true when the object closed or broke in it. */
  private releaseArguments(text: string): boolean {
    for (let i = 0; i < text.length; i++) {
      const step = this.scanner.step(text[i] ?? '');
      if (step === 'more') continue;
      const checked = step === 'done' ? i + 1 : i;
      this.items.fragment(text.slice(0, checked));
      this.held = this.held.slice(checked);
      this.closeArguments();
      return true;
    }
    this.items.fragment(text);
    this.held = this.held.slice(text.length);
    return false;
  }

  /** Ends the call; what is left of it up to its end marker is dropped. */
  private closeArguments(): void {
    this.endCall();
    this.state = 'closing';
  }

  private stepParameters(): boolean {
    const markers = [this.parameterMarkup().start, this.format.callEnd];
    const hit = firstMarker(this.held, markers);
    if (hit === null) {
      // Layout between parameters is dropped.
      this.held = this.held.slice(this.held.length - partialMarkerLength(this.held, markers));
      return false;
    }
    this.held = this.held.slice(hit.index + hit.marker.length);
    if (hit.marker === this.format.callEnd) {
      this.closeParameters();
    } else {
      this.state = 'key';
    }
    return true;
  }

  private stepKey(): boolean {
    const markup = this.parameterMarkup();
    const index = this.held.indexOf(markup.keyEnd);
    if (index < 0) return false;
    const raw = this.held.slice(0, index);
    this.key = markup.readKey?.(raw) ?? { key: stripQuotes(raw) };
    this.held = this.held.slice(index + markup.keyEnd.length);
    this.state = markup.valueStart === undefined ? 'value' : 'valueOpen';
    return true;
  }

  private stepValue(): boolean {
    const markup = this.parameterMarkup();
    const index = this.held.indexOf(markup.valueEnd);
    if (index < 0) return false;
    this.parameter(this.held.slice(0, index));
    this.held = this.held.slice(index + markup.valueEnd.length);
    this.state = 'parameters';
    return true;
  }

  /** Drops the held text up to and including `marker`, then `then`; false while it has not come. */
  private skipTo(marker: string, then: () => void): boolean {
    const index = this.held.indexOf(marker);
    if (index < 0) {
      if (this.state !== 'closing' && this.held.length > MAX_NAME) return this.malformed();
      return false;
    }
    this.consume(index + marker.length);
    then();
    return true;
  }

  private parameterMarkup(): ParameterArgumentsMarkup {
    const markup = this.format.arguments;
    if (markup.kind !== 'parameters') throw new Error('parameter state in a raw JSON format');
    return markup;
  }

  /** One `"key":value` piece of the arguments object. */
  private parameter(text: string): void {
    const markup = this.parameterMarkup();
    const laid = markup.trimValues === true ? text.trim() : stripLayout(text);
    const value = markup.xmlEntities === true ? decodeXmlEntities(laid) : laid;
    const { key, as } = this.key;
    const typed = as === 'text' ? value : as === 'json' ? jsonOr(value, value) : typedValue(value, parameterType(this.tools, this.name, key), markup);
    this.items.member(key, typed);
  }

  private closeParameters(): void {
    this.items.endBuiltCall();
    this.afterCall();
  }

  /**
   * The block so far was not a call: released as content, and the scan goes on after it; a format
   * that drops such markup drops the rest of its section too.
   */
  private malformed(): boolean {
    this.release(this.raw);
    this.raw = '';
    const inSection = this.format.section !== undefined && !this.bare;
    this.state = this.format.dropsMalformed === true && inSection ? 'discard' : 'content';
    return true;
  }

  /** Drops a broken section up to and including its end marker. */
  private stepDiscard(): boolean {
    const ends = this.format.section?.ends ?? [];
    const hit = firstMarker(this.held, ends);
    if (hit === null) {
      this.held = this.held.slice(this.held.length - partialMarkerLength(this.held, ends));
      return false;
    }
    this.held = this.held.slice(hit.index + hit.marker.length);
    this.state = 'content';
    return true;
  }

  /** Markup that was no call: content, unless the format drops it. */
  private release(markup: string): void {
    if (this.format.dropsMalformed !== true) this.items.content(markup);
  }

  private consume(length: number): void {
    this.raw += this.held.slice(0, length);
    this.held = this.held.slice(length);
  }

  private startCall(): void {
    this.raw = '';
    this.items.startCall(this.name);
  }

  private endCall(): void {
    this.items.endCall();
    this.afterCall();
  }

  private afterCall(): void {
    this.raw = '';
    this.state = this.format.section === undefined || this.bare ? 'content' : 'section';
  }

  /** With `knownNamesOnly`, a name the request's tools give (any name when it gave none). */
  private knownName(name: string): boolean {
    return this.format.knownNamesOnly !== true || this.tools.length === 0 || this.tools.some((tool) => tool.name === name);
  }

}

export function markupToolParser(format: ToolMarkupFormat): (options: ToolCallParserOptions) => ToolCallParser {
  return (options) => new ToolMarkupParser(format, options);
}
