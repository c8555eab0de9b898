// The floor grpc-js itself sets: a server on the same proto answering every ModelInfer with a fixed
// two-output response. Started as a child process by bench/grpc.ts; prints its port.
import * as grpc from '@grpc/grpc-js';
import { loadProtos } from '../src/frontends/grpc/index.js';

const FIXED = {
  model_name: 'Qwen/Qwen3-0.6B',
  model_version: '1',
  id: '',
  parameters: {},
  raw_output_contents: [],
  outputs: [
    { name: 'text_output', datatype: 'BYTES', shape: [1], contents: { bytes_contents: [Buffer.from(' the')] } },
    { name: 'finish_reason', datatype: 'BYTES', shape: [1], contents: { bytes_contents: [Buffer.from('length')] } },
  ],
};

const server = new grpc.Server();
server.addService(loadProtos().inference, {
  ModelInfer: (_call: unknown, callback: grpc.sendUnaryData<unknown>) => callback(null, FIXED),
});
server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, port) => {
  if (err) throw err;
  console.log(`port=${port}`);
});
process.on('SIGTERM', () => server.tryShutdown(() => process.exit(0)));
