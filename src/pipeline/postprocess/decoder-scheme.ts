// Reads the `decoder` section of a Hugging Face tokenizer.json into the few facts needed to know
// what bytes each token contributes to the output. Context-free per token by design: the only
// context-dependent rules real models use affect the first token of an output, and those are
// described by `leading`.

export type LeadingRule =
  /** Nothing special happens at the start of an output (ByteLevel). */
  | { kind: 'none' }
  /** A `Strip` decoder removes up to `count` leading spaces of the output (Llama-2 style). */
  | { kind: 'strip'; count: number }
  /** Metaspace with a prepend scheme: the first token loses every space its "▁" became. */
  | { kind: 'metaspace' }
  /** WordPiece: the first token gets no joining space and keeps its continuation prefix. */
  | { kind: 'wordpiece'; prefix: string };

export interface DecoderScheme {
  /** Vocabulary strings are in the GPT-2 byte-level alphabet. */
  byteLevel: boolean;
  /** `<0xNN>` tokens stand for one raw byte. */
  byteFallback: boolean;
  /** Literal string replacements applied in order (Metaspace is one: "▁" → " "). */
  replacements: Array<[from: string, to: string]>;
  /** WordPiece continuation prefix (tokens without it are joined with a space), or null. */
  wordPiecePrefix: string | null;
  /** WordPiece `cleanup`: glue punctuation and contractions to the previous word. */
  wordPieceCleanup: boolean;
  leading: LeadingRule;
}

type Json = Record<string, unknown>;

export function decoderSchemeFrom(decoder: unknown): DecoderScheme {
  const scheme: DecoderScheme = {
    byteLevel: false,
    byteFallback: false,
    replacements: [],
    wordPiecePrefix: null,
    wordPieceCleanup: false,
    leading: { kind: 'none' },
  };
  if (decoder == null) throw new Error('tokenizer.json has no decoder: token text cannot be derived');
  apply(scheme, decoder as Json);
  return scheme;
}

function apply(scheme: DecoderScheme, d: Json): void {
  switch (d.type) {
    case 'Sequence':
      for (const inner of (d.decoders as Json[] | undefined) ?? []) apply(scheme, inner);
      return;
    case 'ByteLevel':
      scheme.byteLevel = true;
      return;
    case 'ByteFallback':
      scheme.byteFallback = true;
      return;
    case 'Fuse':
      // Joining tokens is what concatenating their bytes already does.
      return;
    case 'Replace': {
      const pattern = d.pattern as Json | undefined;
      if (typeof pattern?.String !== 'string' || typeof d.content !== 'string') {
        throw new Error('unsupported tokenizer decoder: Replace with a regex pattern');
      }
      scheme.replacements.push([pattern.String, d.content]);
      return;
    }
    case 'Strip': {
      if (d.content !== ' ' || d.stop !== 0) throw new Error('unsupported tokenizer decoder: Strip other than leading spaces');
      scheme.leading = { kind: 'strip', count: Number(d.start ?? 0) };
      return;
    }
    case 'Metaspace': {
      const replacement = typeof d.replacement === 'string' ? d.replacement : '\u2581';
      scheme.replacements.push([replacement, ' ']);
      // Older files say add_prefix_space; newer ones prepend_scheme first | always | never.
      const strips = d.prepend_scheme !== undefined ? d.prepend_scheme !== 'never' : d.add_prefix_space !== false;
      if (strips) scheme.leading = { kind: 'metaspace' };
      return;
    }
    case 'WordPiece': {
      const prefix = typeof d.prefix === 'string' ? d.prefix : '##';
      scheme.wordPiecePrefix = prefix;
      scheme.wordPieceCleanup = d.cleanup !== false;
      scheme.leading = { kind: 'wordpiece', prefix };
      return;
    }
    default:
      throw new Error(`unsupported tokenizer decoder: ${String(d.type)}`);
  }
}

const CLEANUPS: Array<[string, string]> = [
  [' .', '.'],
  [' ?', '?'],
  [' !', '!'],
  [' ,', ','],
  [" ' ", "'"],
  [" n't", "n't"],
  [" 'm", "'m"],
  [' do not', " don't"],
  [" 's", "'s"],
  [" 've", "'ve"],
  [" 're", "'re"],
];

/** The text a WordPiece token contributes after the first position, and whether it continued a word. */
export function wordPieceText(scheme: DecoderScheme, token: string): { text: string; continuation: boolean } {
  const prefix = scheme.wordPiecePrefix!;
  const continuation = token.startsWith(prefix);
  let text = continuation ? token.slice(prefix.length) : ` ${token}`;
  if (scheme.wordPieceCleanup) for (const [from, to] of CLEANUPS) text = text.replaceAll(from, to);
  return { text, continuation };
}
