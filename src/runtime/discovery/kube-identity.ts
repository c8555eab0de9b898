// Who this process is in Kubernetes (reference/operate-faults.md §1.2): the pod's name, uid and
// namespace from the Downward API files, else POD_* env vars; the DynamoWorkerMetadata CR name;
// and the instance id upstream derives from it (Rust's DefaultHasher, SipHash-1-3 with zero keys,
// over the name's bytes and a 0xFF terminator, masked to 53 bits so it is JS-safe).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const PODINFO_DIR = '/etc/podinfo';
const ID_MASK = 0x001f_ffff_ffff_ffffn;
const U64 = (1n << 64n) - 1n;

export interface PodIdentity {
  podName: string;
  podUid: string;
  namespace: string;
}

export interface IdentitySources {
  env: Record<string, string | undefined>;
  /** The Downward API directory; /etc/podinfo. */
  podinfoDir?: string;
  /** Told when the namespace falls back to `default`. */
  warn?: (message: string) => void;
}

function fromFile(dir: string, name: string): string | undefined {
  try {
    const text = readFileSync(join(dir, name), 'utf8').trim();
    return text || undefined;
  } catch {
    return undefined;
  }
}

/** Throws, as upstream, when the pod name or uid is nowhere to be found. */
export function podIdentity(src: IdentitySources): PodIdentity {
  const dir = src.podinfoDir ?? PODINFO_DIR;
  const read = (file: string, env: string): string | undefined => fromFile(dir, file) ?? (src.env[env]?.trim() || undefined);
  const podName = read('pod_name', 'POD_NAME');
  if (!podName) throw new Error('POD_NAME not available from file or environment');
  const podUid = read('pod_uid', 'POD_UID');
  if (!podUid) throw new Error('POD_UID not available from file or environment');
  let namespace = read('pod_namespace', 'POD_NAMESPACE');
  if (!namespace) {
    src.warn?.('POD_NAMESPACE not available from file or environment; using namespace "default"');
    namespace = 'default';
  }
  return { podName, podUid, namespace };
}

const rotl = (x: bigint, b: bigint): bigint => ((x << b) | (x >> (64n - b))) & U64;

/** SipHash-1-3 with keys (0, 0): one compression round per word, three finalization rounds. */
export function sipHash13(bytes: Uint8Array): bigint {
  let v0 = 0x736f6d6570736575n;
  let v1 = 0x646f72616e646f6dn;
  let v2 = 0x6c7967656e657261n;
  let v3 = 0x7465646279746573n;
  const round = (): void => {
    v0 = (v0 + v1) & U64; v1 = rotl(v1, 13n); v1 ^= v0; v0 = rotl(v0, 32n);
    v2 = (v2 + v3) & U64; v3 = rotl(v3, 16n); v3 ^= v2;
    v0 = (v0 + v3) & U64; v3 = rotl(v3, 21n); v3 ^= v0;
    v2 = (v2 + v1) & U64; v1 = rotl(v1, 17n); v1 ^= v2; v2 = rotl(v2, 32n);
  };
  const compress = (m: bigint): void => {
    v3 ^= m;
    round();
    v0 ^= m;
  };
  const whole = bytes.length - (bytes.length % 8);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < whole; i += 8) compress(view.getBigUint64(i, true));
  let last = BigInt(bytes.length & 0xff) << 56n;
  for (let i = whole; i < bytes.length; i++) last |= BigInt(bytes[i]!) << BigInt(8 * (i - whole));
  compress(last);
  v2 ^= 0xffn;
  round();
  round();
  round();
  return v0 ^ v1 ^ v2 ^ v3;
}

/** Upstream's instance id for a CR name: `hash(name) & 0x1F_FFFF_FFFF_FFFF`. */
export function kubeInstanceId(crName: string): bigint {
  const utf8 = Buffer.from(crName, 'utf8');
  // Rust's `Hash for str` writes the bytes, then 0xFF so "ab","c" and "a","bc" differ.
  const bytes = new Uint8Array(utf8.length + 1);
  bytes.set(utf8);
  bytes[utf8.length] = 0xff;
  return sipHash13(bytes) & ID_MASK;
}
