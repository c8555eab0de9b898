// Loads the project's .proto files once: grpc-js service definitions (via proto-loader) and a
// protobufjs Root for what proto-loader does not expose (ModelConfig bytes, text format, descriptors).

import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import protobuf from 'protobufjs';

/** The decode options every message of this server uses (see wire-types.ts). */
export const LOADER_OPTIONS: protoLoader.Options = {
  keepCase: true,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
};

/** Directory holding inference.proto and health.proto: next to the build, else in the source tree. */
export function protoDir(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const candidates = [path.join(here, 'proto'), path.resolve(here, '../../../../src/frontends/grpc/proto')];
  const found = candidates.find((dir) => existsSync(path.join(dir, 'inference.proto')));
  if (!found) throw new Error(`inference.proto not found (looked in ${candidates.join(', ')})`);
  return found;
}

export const INFERENCE_PROTO_FILES = ['inference.proto', 'health.proto'] as const;

export interface LoadedProtos {
  inference: grpc.ServiceDefinition;
  health: grpc.ServiceDefinition;
  /** proto-loader's definition, which carries the file descriptors server reflection serves. */
  packageDefinition: protoLoader.PackageDefinition;
  root: protobuf.Root;
  /** Absolute path of each loaded file. */
  files: string[];
}

let cached: LoadedProtos | undefined;

export function loadProtos(): LoadedProtos {
  if (cached) return cached;
  const dir = protoDir();
  const files = INFERENCE_PROTO_FILES.map((f) => path.join(dir, f));
  const packageDefinition = protoLoader.loadSync(files, LOADER_OPTIONS);
  const pkg = grpc.loadPackageDefinition(packageDefinition) as unknown as {
    inference: { GRPCInferenceService: grpc.ServiceClientConstructor };
    grpc: { health: { v1: { Health: grpc.ServiceClientConstructor } } };
  };
  const root = new protobuf.Root().loadSync(files, { keepCase: true });
  root.resolveAll();
  cached = {
    inference: pkg.inference.GRPCInferenceService.service,
    health: pkg.grpc.health.v1.Health.service,
    packageDefinition,
    root,
    files,
  };
  return cached;
}

/** protobufjs → plain object with the same conventions as proto-loader. */
export const TO_OBJECT: protobuf.IConversionOptions = { longs: String, enums: String, defaults: true, oneofs: true };
