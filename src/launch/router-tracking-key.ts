// `--router-tracking-hash keyed-xxh3-v1`: the provider key, read and checked once at startup. A
// key that cannot be used stops startup instead of falling back to public identities, as upstream.
import { readFileSync } from 'node:fs';
import { ConfigError, type Config } from '../config/index.js';
import { TRACKING_KEY_BYTES, TrackingKey } from '../router/index.js';

const loaded = new WeakMap<Config, TrackingKey | null>();

/** The key keyed tracking uses; null in public mode. Throws ConfigError naming the flag at fault. */
export function trackingKey(config: Config): TrackingKey | null {
  if (loaded.has(config)) return loaded.get(config)!;
  const key = readKey(config);
  loaded.set(config, key);
  return key;
}

function readKey(config: Config): TrackingKey | null {
  const file = config.routerTrackingKeyFile;
  const id = config.routerTrackingKeyId;
  if (config.routerTrackingHash === 'public-xxh3-v1') {
    if (file !== undefined || id !== undefined) throw new ConfigError('--router-tracking-key-file and --router-tracking-key-id require --router-tracking-hash keyed-xxh3-v1');
    return null;
  }
  if (file === undefined) throw new ConfigError('--router-tracking-hash keyed-xxh3-v1 requires --router-tracking-key-file');
  if (id === undefined || id === '' || id.trim() !== id) throw new ConfigError('--router-tracking-hash keyed-xxh3-v1 requires a nonempty --router-tracking-key-id without surrounding spaces');
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (err) {
    throw new ConfigError(`--router-tracking-key-file ${file} cannot be read: ${(err as Error).message}`);
  }
  if (bytes.length !== TRACKING_KEY_BYTES) throw new ConfigError(`--router-tracking-key-file must contain exactly ${TRACKING_KEY_BYTES} raw bytes; ${file} has ${bytes.length}`);
  const key = new TrackingKey(bytes, id);
  bytes.fill(0);
  return key;
}
