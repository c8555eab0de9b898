// Media content parts of chat messages (image_url, video_url, audio_url, input_audio): which ones a
// model can take, and how they travel to the engine. As upstream, the prompt text comes from the
// chat template (which writes the model's placeholder tokens for each part) and the media go beside
// the token ids in `multi_modal_data`, keyed by part type: `{"image_url": [{"Url": "https://…"}]}`.
// The worker fetches and encodes them.

import type { ChatMessage, MultimodalDataMap } from '../../protocols/index.js';
import { isObject } from './json-types.js';
import { fail } from './validation-failure.js';

export type MediaKind = 'image' | 'video' | 'audio';

/** The media kind of each media part type (chat's and the Responses API's spellings). */
export const MEDIA_KIND_OF_PART: Readonly<Record<string, MediaKind>> = {
  image_url: 'image',
  input_image: 'image',
  video_url: 'video',
  audio_url: 'audio',
  input_audio: 'audio',
};

/**
 * Whether a template renders a media kind, read from its text. Multimodal Hugging Face templates
 * branch on the part's type by comparing it with a quoted type name (`content['type'] == 'image'`,
 * `selectattr('type', 'equalto', 'image')`, `'image_url' in item`, ...) to write the model's
 * placeholder tokens; a text-only template never names one. So a kind counts as rendered when
 * some template of the model holds one of its type names as a string literal.
 */
const RENDERED_BY: Readonly<Record<MediaKind, RegExp>> = {
  image: /['"](?:image|image_url|input_image)['"]/,
  video: /['"](?:video|video_url)['"]/,
  audio: /['"](?:audio|audio_url|input_audio)['"]/,
};

export function templateMediaKinds(templates: Iterable<string>): ReadonlySet<MediaKind> {
  const sources = [...templates];
  const kinds = Object.keys(RENDERED_BY) as MediaKind[];
  return new Set(kinds.filter((kind) => sources.some((source) => RENDERED_BY[kind].test(source))));
}

interface MediaPart {
  path: string;
  type: string;
  kind: MediaKind;
  part: Record<string, unknown>;
}

const NO_PARTS: readonly MediaPart[] = [];

/** The media parts of `messages` in order; a text-only conversation (most) allocates nothing. */
export function mediaParts(messages: readonly ChatMessage[]): readonly MediaPart[] {
  let parts: MediaPart[] | undefined;
  for (let i = 0; i < messages.length; i++) {
    const content = messages[i]!.content;
    if (!Array.isArray(content)) continue;
    for (let k = 0; k < content.length; k++) {
      const part = content[k]!;
      const kind = MEDIA_KIND_OF_PART[part.type];
      if (kind) (parts ??= []).push({ path: `messages[${i}].content[${k}]`, type: part.type, kind, part: part as Record<string, unknown> });
    }
  }
  return parts ?? NO_PARTS;
}

/** The map key each part type travels under (upstream knows image_url, video_url and audio_url). */
const WIRE_KEY: Readonly<Record<string, string>> = {
  image_url: 'image_url',
  input_image: 'image_url',
  video_url: 'video_url',
  audio_url: 'audio_url',
  input_audio: 'audio_url',
};

/** The part's media as a URL; OpenAI's inline `input_audio` becomes a `data:` URL. */
function partUrl({ path, type, part }: MediaPart): string {
  if (type === 'input_audio') {
    const audio = part.input_audio;
    if (!isObject(audio) || typeof audio.data !== 'string' || audio.data === '') fail(`${path}.input_audio.data: expected base64 audio`);
    const format = typeof audio.format === 'string' && audio.format !== '' ? audio.format : 'wav';
    return `data:audio/${format};base64,${audio.data}`;
  }
  // Chat nests the URL (`image_url: {url}`); the Responses API gives it flat (`image_url: "…"`).
  const field = type === 'input_image' ? 'image_url' : type;
  const value = part[field];
  const url = typeof value === 'string' ? value : isObject(value) ? value.url : undefined;
  if (typeof url !== 'string' || url === '') fail(`${path}.${field}${typeof value === 'string' ? '' : '.url'}: expected a URL string`);
  return url;
}

/** The request's media in message order, by wire key; undefined when it has none. */
export function multiModalData(messages: readonly ChatMessage[]): MultimodalDataMap | undefined {
  let map: MultimodalDataMap | undefined;
  for (const media of mediaParts(messages)) {
    map ??= {};
    (map[WIRE_KEY[media.type]!] ??= []).push({ Url: partUrl(media) });
  }
  return map;
}
