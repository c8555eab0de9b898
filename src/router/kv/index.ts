export {
  XXH3_SEED,
  computeBlockHash,
  computeSaltSeed,
  computeLocalBlockHashes,
  computeEagleLocalBlockHashes,
  chainSequenceHash,
  computeSequenceHashes,
  type SaltOptions,
} from './hashing.js';
