// A YAML document read with the line of every mapping key and sequence item, so a mistake deep in a
// configuration file is reported as `file:line: path.to.key: what is wrong`. js-yaml tells a
// listener where each node opens and closes; a mapping's children close in key, value order.
import yaml from 'js-yaml';
import { ConfigError } from '../../config/index.js';

interface Frame {
  line: number;
  result: unknown;
  children: Frame[];
}

/** Per mapping, the line of each key; per sequence, the line of each item (1-based). */
interface Lines {
  readonly keys: WeakMap<object, Map<string, number>>;
  readonly items: WeakMap<object, number[]>;
}

function recordLines(frame: Frame, lines: Lines): void {
  const value = frame.result;
  if (Array.isArray(value)) {
    lines.items.set(value, frame.children.map((c) => c.line));
  } else if (value !== null && typeof value === 'object') {
    const keys = new Map<string, number>();
    // Children alternate key, value; a merge key (`<<`) breaks the pairing, and its keys then take the mapping's line.
    for (let i = 0; i + 1 < frame.children.length; i += 2) {
      const key = frame.children[i]!.result;
      if (typeof key === 'string') keys.set(key, frame.children[i]!.line);
    }
    lines.keys.set(value, keys);
  }
  for (const child of frame.children) recordLines(child, lines);
}

export class YamlNode {
  constructor(
    /** How the document is named in messages, e.g. `--router-policy-config policy.yaml`. */
    readonly source: string,
    readonly value: unknown,
    /** Dotted path from the document root; empty at the root. */
    readonly path: string,
    readonly line: number,
    private readonly lines: Lines,
  ) {}

  /** Parses `text`; a syntax error names the line js-yaml stopped at. */
  static parse(text: string, source: string): YamlNode {
    const root: Frame = { line: 1, result: undefined, children: [] };
    const stack: Frame[] = [root];
    let value: unknown;
    try {
      value = yaml.load(text, {
        listener(event, state) {
          if (event === 'open') {
            stack.push({ line: state.line + 1, result: undefined, children: [] });
          } else {
            const frame = stack.pop()!;
            frame.result = state.result;
            stack[stack.length - 1]!.children.push(frame);
          }
        },
      });
    } catch (err) {
      if (err instanceof yaml.YAMLException) throw new ConfigError(`${source}:${err.mark.line + 1}: not valid YAML: ${err.reason}`);
      throw err;
    }
    const lines: Lines = { keys: new WeakMap(), items: new WeakMap() };
    for (const frame of root.children) recordLines(frame, lines);
    return new YamlNode(source, value, '', 1, lines);
  }

  /** Fails naming this node's place in the document. */
  fail(message: string): never {
    const where = this.path === '' ? '' : ` ${this.path}:`;
    throw new ConfigError(`${this.source}:${this.line}:${where} ${message}`);
  }

  get isNull(): boolean {
    return this.value === null || this.value === undefined;
  }

  /** A mapping's entries, refusing any key not in `known` (a misspelt key fails here instead of being ignored). */
  fields(known: readonly string[]): Map<string, YamlNode> {
    const v = this.value;
    if (v === null || typeof v !== 'object' || Array.isArray(v)) this.fail(`must be a mapping, got ${describe(v)}`);
    const keyLines = this.lines.keys.get(v);
    const out = new Map<string, YamlNode>();
    for (const [key, child] of Object.entries(v)) {
      const node = new YamlNode(this.source, child, this.path === '' ? key : `${this.path}.${key}`, keyLines?.get(key) ?? this.line, this.lines);
      if (!known.includes(key)) node.fail(`unknown key; expected one of ${known.join(', ')}`);
      out.set(key, node);
    }
    return out;
  }

  items(): YamlNode[] {
    const v = this.value;
    if (!Array.isArray(v)) this.fail(`must be a list, got ${describe(v)}`);
    const itemLines = this.lines.items.get(v);
    return v.map((item, i) => new YamlNode(this.source, item, `${this.path}[${i}]`, itemLines?.[i] ?? this.line, this.lines));
  }

  string(): string {
    if (typeof this.value !== 'string' || this.value === '') this.fail(`must be a non-empty string, got ${describe(this.value)}`);
    return this.value;
  }

  /** A name used in metrics and logs: letters, digits, `_`, `.` and `-`. */
  identifier(what: string): string {
    const name = this.string();
    if (!/^[A-Za-z0-9_.-]+$/.test(name)) this.fail(`${what} name ${JSON.stringify(name)} must match [A-Za-z0-9_.-]+`);
    return name;
  }

  oneOf<T extends string>(choices: readonly T[]): T {
    const v = this.value;
    if (typeof v !== 'string' || !(choices as readonly string[]).includes(v)) this.fail(`must be one of ${choices.join(', ')}, got ${describe(v)}`);
    return v as T;
  }

  number(bounds: { integer?: boolean; min?: number; max?: number } = {}): number {
    const v = this.value;
    const kind = bounds.integer ? 'an integer' : 'a number';
    if (typeof v !== 'number' || !Number.isFinite(v) || (bounds.integer === true && !Number.isSafeInteger(v))) this.fail(`must be ${kind}, got ${describe(v)}`);
    if (bounds.min !== undefined && v < bounds.min) this.fail(`must be ${kind} >= ${bounds.min}, got ${v}`);
    if (bounds.max !== undefined && v > bounds.max) this.fail(`must be ${kind} <= ${bounds.max}, got ${v}`);
    return v;
  }
}

/** A value as messages show it. */
export function describe(v: unknown): string {
  if (v === null || v === undefined) return 'nothing';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a mapping';
  return typeof v === 'string' ? `'${v}'` : String(v);
}
