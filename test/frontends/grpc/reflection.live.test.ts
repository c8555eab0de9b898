// Server reflection (v1 and v1alpha): a grpc-js client lists the services and fetches the
// descriptor of inference.proto by symbol and by file name; so does a python grpcio client
// (python3 has no grpc_reflection package here, so its stubs are generated from reflection.proto).

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import protobuf from 'protobufjs';
import descriptor from 'protobufjs/ext/descriptor/index.js';
import { startHarness, type Harness } from './harness.js';

const reflectionProtoDir = path.join(path.dirname(createRequire(import.meta.url).resolve('@grpc/reflection')), '../proto');

interface ReflectionResponse {
  list_services_response?: { service: { name: string }[] };
  file_descriptor_response?: { file_descriptor_proto: Buffer[] };
  error_response?: { error_code: number; error_message: string };
}

function reflectionClient(version: 'v1' | 'v1alpha', port: number): grpc.Client & Record<string, () => grpc.ClientDuplexStream<unknown, ReflectionResponse>> {
  const def = protoLoader.loadSync(`grpc/reflection/${version}/reflection.proto`, { keepCase: true, includeDirs: [reflectionProtoDir] });
  const pkg = grpc.loadPackageDefinition(def) as any;
  const Ctor = pkg.grpc.reflection[version].ServerReflection as grpc.ServiceClientConstructor;
  return new Ctor(`127.0.0.1:${port}`, grpc.credentials.createInsecure()) as any;
}

/** One request on a fresh reflection stream, one response back. */
function ask(client: ReturnType<typeof reflectionClient>, request: Record<string, string>): Promise<ReflectionResponse> {
  return new Promise((resolve, reject) => {
    const call = client.ServerReflectionInfo!();
    call.once('data', (res: ReflectionResponse) => {
      resolve(res);
      call.end();
    });
    call.once('error', reject);
    call.write(request);
  });
}

function fileNames(res: ReflectionResponse): { names: string[]; services: string[] } {
  const files = res.file_descriptor_response!.file_descriptor_proto.map(
    (bytes) => descriptor.FileDescriptorProto.decode(bytes) as unknown as { name: string; service: { name: string }[] },
  );
  return { names: files.map((f) => f.name), services: files.flatMap((f) => f.service.map((s) => s.name)) };
}

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(() => h.close());

for (const version of ['v1', 'v1alpha'] as const) {
  test(`reflection ${version}: list_services, file_containing_symbol, file_by_filename`, async () => {
    const client = reflectionClient(version, h.frontend.grpcPort);
    try {
      const listed = await ask(client, { list_services: '*' });
      const services = listed.list_services_response!.service.map((s) => s.name);
      assert.ok(services.includes('inference.GRPCInferenceService'), services.join());
      assert.ok(services.includes('grpc.health.v1.Health'), services.join());

      const bySymbol = fileNames(await ask(client, { file_containing_symbol: 'inference.GRPCInferenceService' }));
      assert.ok(bySymbol.services.includes('GRPCInferenceService'));
      const inferenceFile = bySymbol.names.find((n) => n.endsWith('inference.proto'));
      assert.ok(inferenceFile, bySymbol.names.join());

      const byName = fileNames(await ask(client, { file_by_filename: inferenceFile! }));
      assert.ok(byName.services.includes('GRPCInferenceService'));

      const missing = await ask(client, { file_containing_symbol: 'no.such.Symbol' });
      assert.equal(missing.error_response?.error_code, grpc.status.NOT_FOUND);
    } finally {
      client.close();
    }
  });
}

test('the reflected descriptor describes ModelInfer with its request and response types', async () => {
  const client = reflectionClient('v1', h.frontend.grpcPort);
  try {
    const res = await ask(client, { file_containing_symbol: 'inference.GRPCInferenceService.ModelInfer' });
    const set = { file: res.file_descriptor_response!.file_descriptor_proto.map((b) => descriptor.FileDescriptorProto.decode(b)) };
    const root = (protobuf.Root as unknown as { fromDescriptor(s: unknown): protobuf.Root }).fromDescriptor(set);
    const method = root.lookupService('inference.GRPCInferenceService').methods['ModelInfer']!;
    assert.equal(method.requestType.replace(/^\./, ''), 'inference.ModelInferRequest');
    assert.ok(root.lookupType('inference.ModelInferRequest').fields['raw_input_contents']);
  } finally {
    client.close();
  }
});

const PYTHON = '/usr/bin/python3';
const PY_CLIENT = `
import sys, grpc
from google.protobuf import descriptor_pb2
import reflection_pb2 as pb, reflection_pb2_grpc as rpc
stub = rpc.ServerReflectionStub(grpc.insecure_channel(sys.argv[1]))
def ask(**kw):
    return next(stub.ServerReflectionInfo(iter([pb.ServerReflectionRequest(**kw)])))
print("services", ",".join(sorted(s.name for s in ask(list_services="*").list_services_response.service)))
for raw in ask(file_containing_symbol="inference.GRPCInferenceService").file_descriptor_response.file_descriptor_proto:
    fd = descriptor_pb2.FileDescriptorProto.FromString(raw)
    for svc in fd.service:
        print("service", fd.package + "." + svc.name, len(svc.method), "ModelInfer" in [m.name for m in svc.method])
`;

test('python grpcio client reads the reflection service', { skip: !existsSync(PYTHON) && 'no /usr/bin/python3' }, async () => {
  const run = promisify(execFile);
  const dir = mkdtempSync(path.join(tmpdir(), 'reflection-py-'));
  try {
    await run(PYTHON, ['-m', 'grpc_tools.protoc', `-I${path.join(reflectionProtoDir, 'grpc/reflection/v1')}`, `--python_out=${dir}`, `--grpc_python_out=${dir}`, 'reflection.proto']);
    writeFileSync(path.join(dir, 'client.py'), PY_CLIENT);
    const { stdout } = await run(PYTHON, [path.join(dir, 'client.py'), `127.0.0.1:${h.frontend.grpcPort}`], { cwd: dir });
    const lines = stdout.trim().split('\n');
    assert.match(lines[0]!, /^services .*grpc\.health\.v1\.Health.*inference\.GRPCInferenceService/);
    assert.ok(lines.includes('service inference.GRPCInferenceService 20 True'), stdout);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
