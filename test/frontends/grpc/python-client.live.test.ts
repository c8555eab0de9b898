// An independent client: Debian's python3-grpcio with stubs generated at test time from the
// project's inference.proto, running ModelInfer and ModelStreamInfer.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { protoDir } from '../../../src/kserve/index.js';
import { completionsModel, SplitEngine, startHarness, tensorModel, type Harness } from './harness.js';

const run = promisify(execFile);
const PYTHON = '/usr/bin/python3';

const CLIENT = `
import sys, struct, grpc
import inference_pb2 as pb, inference_pb2_grpc as rpc
stub = rpc.GRPCInferenceServiceStub(grpc.insecure_channel(sys.argv[1]))
req = pb.ModelInferRequest(model_name="split", id="py-1")
t = req.inputs.add(name="text_input", datatype="BYTES", shape=[1])
req.raw_input_contents.append(struct.pack("<I", 11) + b"dummy input")
res = stub.ModelInfer(req)
print("unary", res.id, res.outputs[0].contents.bytes_contents[0].decode(), res.outputs[1].contents.bytes_contents[0].decode())
def reqs():
    r = pb.ModelInferRequest(model_name="split", id="py-2")
    r.inputs.add(name="text_input", datatype="BYTES", shape=[1]).contents.bytes_contents.append(b"dummy input")
    r.inputs.add(name="streaming", datatype="BOOL", shape=[1]).contents.bool_contents.append(True)
    yield r
text = "".join(m.infer_response.outputs[0].contents.bytes_contents[0].decode() for m in stub.ModelStreamInfer(reqs()))
print("stream", text)
tr = pb.ModelInferRequest(model_name="tensor", id="py-3")
tr.inputs.add(name="x", datatype="INT32", shape=[3])
tr.raw_input_contents.append(struct.pack("<3i", 1, -2, 3))
out = stub.ModelInfer(tr)
print("tensor", list(struct.unpack("<3i", out.raw_output_contents[0])))
`;

let h: Harness;
let dir: string;
const available = existsSync(PYTHON);

before(async () => {
  h = await startHarness({ completions: [completionsModel('split', new SplitEngine())], tensors: [tensorModel('tensor')] });
  dir = mkdtempSync(path.join(tmpdir(), 'kserve-py-'));
});
after(async () => {
  await h.close();
  rmSync(dir, { recursive: true, force: true });
});

test('python grpcio client: ModelInfer and ModelStreamInfer', { skip: !available && 'no /usr/bin/python3' }, async () => {
  await run(PYTHON, ['-m', 'grpc_tools.protoc', `-I${protoDir()}`, `--python_out=${dir}`, `--grpc_python_out=${dir}`, 'inference.proto']);
  writeFileSync(path.join(dir, 'client.py'), CLIENT);
  const { stdout } = await run(PYTHON, [path.join(dir, 'client.py'), `127.0.0.1:${h.frontend.grpcPort}`], { cwd: dir });
  assert.deepEqual(stdout.trim().split('\n'), ['unary py-1 dummy input stop', 'stream dummy input', 'tensor [1, -2, 3]']);
});
