// Prompt text of a chosen length in tokens. Each word is a common English word that BPE
// tokenizers (Llama, Qwen, GPT) hold as one token with its leading space, and pre-tokenizers
// split at spaces, so N words are about N tokens and equal text gives equal leading tokens.
import { seededRandom } from './random.js';

const WORDS = (
  'the of and to in is that for it as was with be by on not he this are or his from at which but have an they you were ' +
  'her she there been one all we their has would when if so no will can more other what about up out them some time ' +
  'into only then new like these two may first could any our now such after most also made over did many where before ' +
  'must through back years much your way well down should because long each just people those how too little state good ' +
  'very make world still own see men work here take three between never under might while last day same another know ' +
  'life year being place since part around old number great small house every found high off thought large without ' +
  'water again left end point always home best few sea light city river ground side story open order power line body'
).split(' ');

/** `count` words drawn with `random`, each with its leading space. */
export function wordsText(count: number, random: () => number): string {
  let text = '';
  for (let i = 0; i < count; i++) text += ` ${WORDS[Math.floor(random() * WORDS.length)]}`;
  return text;
}

/**
 * The text of one trace block: a function of its hash id only, so every request naming the id
 * starts with the same words. Fewer `tokens` than the block size give the block's first words.
 */
export function blockText(hashId: number, blockSize: number, tokens = blockSize): string {
  return wordsText(Math.min(tokens, blockSize), seededRandom(Math.imul(hashId, 0x9e3779b1) + 1));
}
