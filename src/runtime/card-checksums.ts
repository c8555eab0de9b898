// BLAKE3 checksums of the files a model card names (upstream CheckedFile:
// `{"path", "checksum": "blake3:<64 hex>", "size"}`). Workers fill them in when they register a card;
// frontends check them before reading the files, so a card whose files changed or differ from the
// worker's is rejected rather than served with the wrong tokenizer.
import { createReadStream, statSync } from 'node:fs';
import { createBLAKE3 } from 'hash-wasm';

type Json = Record<string, unknown>;

const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Digests by `path|size|mtime`: every instance of a multi-worker process shares the same files. */
const digests = new Map<string, Promise<string>>();

async function hashFile(path: string): Promise<string> {
  const hasher = await createBLAKE3();
  for await (const chunk of createReadStream(path)) hasher.update(chunk as Buffer);
  return `blake3:${hasher.digest('hex')}`;
}

/** `blake3:<64 hex>` of a file, cached while its size and mtime stay the same. */
export function fileChecksum(path: string): Promise<string> {
  const st = statSync(path);
  const key = `${path}|${st.size}|${st.mtimeMs}`;
  let digest = digests.get(key);
  if (!digest) {
    digest = hashFile(path);
    digests.set(key, digest);
    digest.catch(() => digests.delete(key));
  }
  return digest;
}

/** Every CheckedFile in a card: objects with a string `path` and a `size` or `checksum`. */
function checkedFiles(value: unknown, out: Json[] = []): Json[] {
  if (Array.isArray(value)) for (const v of value) checkedFiles(v, out);
  else if (isRecord(value)) {
    if (typeof value.path === 'string' && ('size' in value || 'checksum' in value)) out.push(value);
    else for (const v of Object.values(value)) checkedFiles(v, out);
  }
  return out;
}

/** A copy of `cardJson` whose CheckedFiles all carry their checksum (worker side). */
export async function withFileChecksums(cardJson: Json): Promise<Json> {
  const card = structuredClone(cardJson);
  await Promise.all(
    checkedFiles(card).map(async (file) => {
      if (typeof file.checksum !== 'string') file.checksum = await fileChecksum(file.path as string);
    }),
  );
  return card;
}

/**
 * Frontend side: throws naming every file whose size or BLAKE3 checksum differs from what the card
 * says, or that cannot be read. Files without a checksum (older workers) are accepted.
 */
export async function verifyFileChecksums(cardJson: Json): Promise<void> {
  const problems = await Promise.all(
    checkedFiles(cardJson).map(async (file): Promise<string | null> => {
      const path = file.path as string;
      if (typeof file.checksum !== 'string') return null;
      if (!/^blake3:[0-9a-f]{64}$/.test(file.checksum)) return `${path}: unsupported checksum ${JSON.stringify(file.checksum)}`;
      try {
        if (typeof file.size === 'number' && statSync(path).size !== file.size) return `${path}: size differs from the card's ${file.size}`;
        const actual = await fileChecksum(path);
        return actual === file.checksum ? null : `${path}: checksum ${actual} differs from the card's ${file.checksum}`;
      } catch (err) {
        return `${path}: ${(err as Error).message}`;
      }
    }),
  );
  const bad = problems.filter((p): p is string => p !== null);
  if (bad.length > 0) throw new Error(`card files do not match their checksums: ${bad.join('; ')}`);
}
