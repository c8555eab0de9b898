// Loads the KServe .proto files once as grpc-js service definitions (via proto-loader); the
// messages' protobufjs Root comes from kserve/.

import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type protobuf from 'protobufjs';
import { protoFiles, protoRoot } from '../../kserve/index.js';

/** The decode options every message of this server uses (see kserve/wire-types.ts). */
export const LOADER_OPTIONS: protoLoader.Options = {
  keepCase: true,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
};

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
  const files = protoFiles();
  const packageDefinition = protoLoader.loadSync(files, LOADER_OPTIONS);
  const pkg = grpc.loadPackageDefinition(packageDefinition) as unknown as {
    inference: { GRPCInferenceService: grpc.ServiceClientConstructor };
    grpc: { health: { v1: { Health: grpc.ServiceClientConstructor } } };
  };
  cached = {
    inference: pkg.inference.GRPCInferenceService.service,
    health: pkg.grpc.health.v1.Health.service,
    packageDefinition,
    root: protoRoot(),
    files,
  };
  return cached;
}
