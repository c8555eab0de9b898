// The xgrammar structural-tag format nodes the builders use, as JSON: upstream sends the engine
// `{"type": "structural_tag", "format": …}` in the request's guided decoding (xgrammar's
// structural-tag API: tags between begin and end strings, triggered tags in free text, sequences,
// JSON schemas in a model's own argument style).

export type Format =
  | TagFormat
  | { type: 'triggered_tags'; triggers: string[]; tags: TagFormat[]; excludes?: string[]; at_least_one: boolean; stop_after_first: boolean }
  | { type: 'tags_with_separator'; tags: TagFormat[]; separator: string; at_least_one: boolean; stop_after_first: boolean }
  | { type: 'sequence'; elements: Format[] }
  | { type: 'json_schema'; json_schema: unknown; style: JsonSchemaStyle; any_order?: boolean }
  | { type: 'const_string'; value: string }
  | { type: 'regex'; pattern: string }
  | { type: 'any_text'; excludes: string[] }
  | { type: 'any_tokens'; exclude_tokens: string[] }
  | { type: 'optional'; content: Format }
  | { type: 'star'; content: Format }
  | { type: 'or'; elements: Format[] };

/** `begin`, then `content`, then `end`. */
export interface TagFormat {
  type: 'tag';
  begin: string;
  content: Format;
  end: string;
}

/** How a model writes a tool's arguments: JSON, or one of the XML parameter styles. */
export type JsonSchemaStyle = 'json' | 'qwen_xml' | 'deepseek_xml' | 'glm_xml';

export interface StructuralTag {
  type: 'structural_tag';
  format: Format;
}

export const tag = (begin: string, content: Format, end: string): TagFormat => ({ type: 'tag', begin, content, end });
export const structuralTag = (format: Format): StructuralTag => ({ type: 'structural_tag', format });

/**
 * A tool-call grammar whose JSON schema nodes (every one of them is a tool's arguments) accept
 * their properties in any order: upstream's `tool_arguments_any_order`.
 */
export function withAnyOrderArguments(format: Format): Format {
  switch (format.type) {
    case 'json_schema':
      return { ...format, any_order: true };
    case 'tag':
      return { ...format, content: withAnyOrderArguments(format.content) };
    case 'triggered_tags':
    case 'tags_with_separator':
      return { ...format, tags: format.tags.map((t) => ({ ...t, content: withAnyOrderArguments(t.content) })) };
    case 'sequence':
    case 'or':
      return { ...format, elements: format.elements.map(withAnyOrderArguments) };
    case 'optional':
    case 'star':
      return { ...format, content: withAnyOrderArguments(format.content) };
    default:
      return format;
  }
}
