// The KServe/Triton .proto files (messages and the gRPC service): where they are, and a protobufjs
// Root over them for what both frontends need beyond the gRPC stubs (ModelConfig bytes, text format).

import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import protobuf from 'protobufjs';

/** Directory holding inference.proto and health.proto: next to the build, else in the source tree. */
export function protoDir(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const candidates = [path.join(here, 'proto'), path.resolve(here, '../../../src/kserve/proto')];
  const found = candidates.find((dir) => existsSync(path.join(dir, 'inference.proto')));
  if (!found) throw new Error(`inference.proto not found (looked in ${candidates.join(', ')})`);
  return found;
}

export const INFERENCE_PROTO_FILES = ['inference.proto', 'health.proto'] as const;

/** Absolute paths of the proto files. */
export function protoFiles(): string[] {
  const dir = protoDir();
  return INFERENCE_PROTO_FILES.map((f) => path.join(dir, f));
}

let root: protobuf.Root | undefined;

/** The messages of the proto files, resolved once. */
export function protoRoot(): protobuf.Root {
  if (root) return root;
  root = new protobuf.Root().loadSync(protoFiles(), { keepCase: true });
  root.resolveAll();
  return root;
}

/** protobufjs → plain object with the same conventions as proto-loader. */
export const TO_OBJECT: protobuf.IConversionOptions = { longs: String, enums: String, defaults: true, oneofs: true };
