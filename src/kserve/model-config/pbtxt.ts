// Protobuf text format (Triton's config.pbtxt) → a message object, interpreted with the message's
// schema so repeated fields, maps, enums and nested messages come out right.

import protobuf from 'protobufjs';
import { TO_OBJECT } from '../proto-files.js';

type Scalar = string | number | boolean;
interface Entry {
  name: string;
  value: Scalar | Entry[] | { ident: string };
}

class Lexer {
  private at = 0;
  constructor(private readonly src: string) {}

  private skip(): void {
    for (;;) {
      while (this.at < this.src.length && /\s/.test(this.src[this.at]!)) this.at++;
      if (this.src[this.at] === '#') {
        while (this.at < this.src.length && this.src[this.at] !== '\n') this.at++;
      } else return;
    }
  }

  peek(): string | undefined {
    this.skip();
    return this.src[this.at];
  }

  eat(ch: string): boolean {
    if (this.peek() === ch) {
      this.at++;
      return true;
    }
    return false;
  }

  expect(ch: string): void {
    if (!this.eat(ch)) throw this.error(`expected '${ch}'`);
  }

  error(what: string): Error {
    const line = this.src.slice(0, this.at).split('\n').length;
    return new Error(`config.pbtxt line ${line}: ${what}`);
  }

  ident(): string {
    this.skip();
    const m = /^[A-Za-z_][A-Za-z0-9_.]*/.exec(this.src.slice(this.at));
    if (!m) throw this.error('expected a field name');
    this.at += m[0].length;
    return m[0];
  }

  scalar(): Scalar | { ident: string } {
    this.skip();
    const ch = this.src[this.at];
    if (ch === '"' || ch === "'") {
      let out = '';
      while (this.src[this.at] === '"' || this.src[this.at] === "'") {
        const quote = this.src[this.at]!;
        this.at++;
        while (this.at < this.src.length && this.src[this.at] !== quote) {
          if (this.src[this.at] === '\\') {
            this.at++;
            const esc = this.src[this.at]!;
            out += esc === 'n' ? '\n' : esc === 't' ? '\t' : esc;
          } else out += this.src[this.at];
          this.at++;
        }
        this.at++;
        this.skip();
      }
      return out;
    }
    const m = /^[-+]?[A-Za-z0-9_.]+/.exec(this.src.slice(this.at));
    if (!m) throw this.error('expected a value');
    this.at += m[0].length;
    const word = m[0];
    if (word === 'true' || word === 'True') return true;
    if (word === 'false' || word === 'False') return false;
    if (/^[-+]?(\d|\.\d)/.test(word)) return Number(word);
    return { ident: word };
  }

  /** Fields until `close` (or end of input). */
  entries(close?: string): Entry[] {
    const out: Entry[] = [];
    while (this.peek() !== undefined && this.peek() !== close) {
      const name = this.ident();
      const colon = this.eat(':');
      if (this.eat('[')) {
        while (!this.eat(']')) {
          out.push({ name, value: this.value() });
          this.eat(',');
        }
      } else if (!colon && this.peek() !== '{' && this.peek() !== '<') {
        throw this.error(`expected ':' after '${name}'`);
      } else {
        out.push({ name, value: this.value() });
      }
      if (!this.eat(',')) this.eat(';');
    }
    return out;
  }

  private value(): Entry['value'] {
    if (this.eat('{')) {
      const inner = this.entries('}');
      this.expect('}');
      return inner;
    }
    if (this.eat('<')) {
      const inner = this.entries('>');
      this.expect('>');
      return inner;
    }
    return this.scalar();
  }
}

function fieldValue(field: protobuf.Field, value: Entry['value'], lexerError: (m: string) => Error): unknown {
  const resolved = field.resolvedType;
  if (resolved instanceof protobuf.Type) {
    if (!Array.isArray(value)) throw lexerError(`field '${field.name}' needs a message value`);
    return build(resolved, value, lexerError);
  }
  if (Array.isArray(value)) throw lexerError(`field '${field.name}' needs a scalar value`);
  if (resolved instanceof protobuf.Enum) {
    const name = typeof value === 'object' ? value.ident : String(value);
    if (typeof value === 'number') return value;
    if (!(name in resolved.values)) throw lexerError(`unknown value '${name}' for enum field '${field.name}'`);
    return name;
  }
  return typeof value === 'object' ? value.ident : value;
}

function build(type: protobuf.Type, entries: Entry[], lexerError: (m: string) => Error): Record<string, unknown> {
  const obj: Record<string, unknown> = {};
  for (const { name, value } of entries) {
    const field = type.fields[name];
    if (!field) throw lexerError(`unknown field '${name}' in ${type.name}`);
    if (field instanceof protobuf.MapField) {
      if (!Array.isArray(value)) throw lexerError(`map field '${name}' needs { key: ... value: ... }`);
      const key = value.find((e) => e.name === 'key')?.value;
      const valueEntry = value.find((e) => e.name === 'value');
      const map = (obj[name] ??= {}) as Record<string, unknown>;
      const mapValue = new protobuf.Field('value', 2, field.type);
      mapValue.resolvedType = field.resolvedType;
      map[String(key)] = valueEntry ? fieldValue(mapValue, valueEntry.value, lexerError) : {};
    } else if (field.repeated) {
      ((obj[name] ??= []) as unknown[]).push(fieldValue(field, value, lexerError));
    } else {
      obj[name] = fieldValue(field, value, lexerError);
    }
  }
  return obj;
}

/** Parses text format into `type`, returning the plain object (proto-loader conventions). */
export function parseTextFormat(type: protobuf.Type, text: string): Record<string, unknown> {
  const lexer = new Lexer(text);
  const entries = lexer.entries();
  const obj = build(type, entries, (m) => lexer.error(m));
  const err = type.verify(type.fromObject(obj) as unknown as Record<string, unknown>);
  if (err) throw new Error(`config.pbtxt: ${err}`);
  return type.toObject(type.fromObject(obj), TO_OBJECT);
}
