// Kimi K3's structural tag. K3 writes XTML channels, not the JSON of generic guided decoding: an
// optional response channel, then a tools channel of calls, each call a list of typed arguments:
//   <|open|>response<|sep|>text<|close|>response<|sep|>
//   <|open|>tools<|sep|><|open|>call tool="f" index="1"<|sep|>
//     <|open|>argument key="k" type="string"<|sep|>v<|close|>argument<|sep|><|close|>call<|sep|>
//   <|close|>tools<|sep|>
// The grammar follows that wire format, so a forced call comes out as the K3 parser reads it.

import { callSequence, type StructuralTagBuilder } from './builders.js';
import { tag, type Format, type TagFormat } from './formats.js';
import { inlineLocalRefs, isPlainObject } from './local-refs.js';
import { argumentsSchema, type TagRequest } from './request.js';

const OPEN = '<|open|>';
const CLOSE = '<|close|>';
const SEP = '<|sep|>';
const RESPONSE_OPEN = `${OPEN}response${SEP}`;
const RESPONSE_CLOSE = `${CLOSE}response${SEP}`;
const TOOLS_OPEN = `${OPEN}tools${SEP}`;
const TOOLS_CLOSE = `${CLOSE}tools${SEP}`;
const CALL_OPEN = `${OPEN}call `;
const CALL_CLOSE = `${CLOSE}call${SEP}`;
const ARGUMENT_CLOSE = `${CLOSE}argument${SEP}`;
const MESSAGE_CLOSE = `${CLOSE}message${SEP}`;
/** One character of an argument's text: anything that does not open a control marker. */
const TEXT_CHAR = '(?:[^<]|<[^|])';
/** Longest `maxLength` given as a bounded regex; longer ones are free text. */
const MAX_BOUNDED_LENGTH = 4096;
const MAX_ENUM_VALUES = 256;

/** JSON schema types → the `type` attribute K3 writes for them. */
const XTML_TYPES: Readonly<Record<string, string>> = { string: 'string', integer: 'number', number: 'number', boolean: 'boolean', null: 'null', object: 'object', array: 'array' };

const constString = (value: string): Format => ({ type: 'const_string', value });
const optional = (content: Format): Format => ({ type: 'optional', content });
const oneOf = (elements: Format[]): Format => (elements.length === 1 ? elements[0]! : { type: 'or', elements });
const escapeAttr = (value: string): string => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;');

/** A string argument: one of its enum values, a bounded length, or any text up to the closing marker. */
function stringContent(schema: Record<string, unknown>): Format {
  const values = Array.isArray(schema.enum) ? schema.enum : typeof schema.const === 'string' ? [schema.const] : null;
  if (values && values.length > 0 && values.length <= MAX_ENUM_VALUES && values.every((v) => typeof v === 'string' && !v.includes('<|'))) {
    return oneOf((values as string[]).map(constString));
  }
  const max = schema.maxLength;
  if (Number.isSafeInteger(max) && (max as number) >= 0 && (max as number) <= MAX_BOUNDED_LENGTH) {
    const given = schema.minLength;
    const min = Number.isSafeInteger(given) && (given as number) >= 0 && (given as number) <= (max as number) ? (given as number) : 0;
    return { type: 'regex', pattern: `${TEXT_CHAR}{${min},${max as number}}` };
  }
  return { type: 'any_text', excludes: [CLOSE] };
}

/** One typed argument; null when its schema names no type K3 writes. `defs`: the root's definitions, for its JSON schema. */
function argumentTag(key: string, schema: unknown, defs: Record<string, unknown>): TagFormat | null {
  if (!isPlainObject(schema) || typeof schema.type !== 'string' || !Object.hasOwn(XTML_TYPES, schema.type)) return null;
  const content: Format =
    schema.type === 'string' ? stringContent(schema) : { type: 'json_schema', json_schema: { ...defs, ...schema }, style: 'json' };
  return tag(`${OPEN}argument key="${escapeAttr(key)}" type="${XTML_TYPES[schema.type]}"${SEP}`, content, ARGUMENT_CLOSE);
}

/** Any argument at all: its attributes, then any text up to the closing marker. */
const ANY_ARGUMENT: TagFormat = tag(
  `${OPEN}argument `,
  { type: 'sequence', elements: [{ type: 'regex', pattern: `[^<]*${SEP.replace(/\|/g, '\\|')}` }, { type: 'any_text', excludes: [CLOSE] }] },
  ARGUMENT_CLOSE,
);

/** A call's arguments, any number in any order: each property's typed tag, or any argument when the schema says too little. */
function argumentsBlock(parameters: unknown): Format {
  const properties = isPlainObject(parameters) ? parameters.properties : undefined;
  if (!isPlainObject(parameters) || !isPlainObject(properties) || Object.keys(properties).length === 0) return { type: 'star', content: ANY_ARGUMENT };
  const defs: Record<string, unknown> = {};
  for (const key of ['$defs', 'definitions']) if (isPlainObject(parameters[key])) defs[key] = parameters[key];
  const tags = Object.entries(properties).map(
    ([key, schema]): Format => argumentTag(key, inlineLocalRefs(parameters, schema), {}) ?? argumentTag(key, schema, defs) ?? ANY_ARGUMENT,
  );
  return { type: 'star', content: oneOf(tags) };
}

function callTag(request: TagRequest, tool: TagRequest['tools'][number]): TagFormat {
  const content: Format = {
    type: 'sequence',
    elements: [{ type: 'regex', pattern: '[0-9]+' }, constString(`"${SEP}`), argumentsBlock(argumentsSchema(tool, request.schema))],
  };
  return tag(`${CALL_OPEN}tool="${escapeAttr(tool.function.name)}" index="`, content, CALL_CLOSE);
}

const toolsChannel = (request: TagRequest): TagFormat =>
  tag(TOOLS_OPEN, callSequence(request.tools.map((tool) => callTag(request, tool)), '', request), TOOLS_CLOSE);

/**
 * The response channel as upstream's parsers-v2 K3 forms write it: its opening optional, its
 * content, then its closing.
 */
const responseChannel = (content: Format): Format[] => [optional(constString(RESPONSE_OPEN)), tag('', content, RESPONSE_CLOSE)];

export const kimiK3Channels: StructuralTagBuilder = {
  banTokens: [],
  reasoningEnd: `${CLOSE}think${SEP}`,
  build: (request) => {
    if (request.tools.length === 0) return null;
    // A named call comes with no text; otherwise the response may hold text, but never a channel
    // marker (or, when the card excludes the family's markers, none of those).
    const response: Format = request.named ? constString('') : { type: 'any_text', excludes: [...(request.textExcludes ?? [OPEN, CLOSE])] };
    const channel = toolsChannel(request);
    return {
      type: 'sequence',
      elements: [optional(constString(RESPONSE_OPEN)), response, optional(constString(RESPONSE_CLOSE)), request.atLeastOne ? channel : optional(channel), optional(constString(MESSAGE_CLOSE))],
    };
  },
  parsersV2: {
    callsOnly: (request) =>
      request.tools.length === 0
        ? null
        : { type: 'sequence', elements: [...responseChannel(constString('')), toolsChannel(request), optional(constString(MESSAGE_CLOSE))] },
    // The answer keeps K3's response channel around it.
    response: (schema) => ({ type: 'sequence', elements: [...responseChannel({ type: 'json_schema', json_schema: schema, style: 'json' }), optional(constString(MESSAGE_CLOSE))] }),
    textExcludes: [TOOLS_OPEN, CALL_OPEN, `${OPEN}think${SEP}`, `${CLOSE}think${SEP}`],
    reasoningExcludes: [TOOLS_OPEN, CALL_OPEN],
    reasoningSuffix: '',
  },
};
