import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ConfigError, withExtraEngineArgs } from '../../src/config/index.js';
import { serveInjected } from '../support/in-process.js';
import { run } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'extra-engine-args-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
function file(content: unknown): string {
  const path = join(dir, `args-${n++}.json`);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

const applied = (content: unknown, flags: string[] = []) => withExtraEngineArgs(run(['mocker', ...flags, '--extra-engine-args', file(content)]).config);
const fails = (content: unknown, message: RegExp): void => {
  assert.throws(() => applied(content), (err: unknown) => err instanceof ConfigError && message.test(err.message));
};

test('the file\'s fields set the engine; the engine flags are replaced, unset fields take their defaults', () => {
  const config = applied(
    { num_gpu_blocks: 512, block_size: 16, max_num_seqs: 4, enable_prefix_caching: false, speedup_ratio: 2.5, engine_type: 'vllm', worker_type: 'aggregated' },
    ['--max-num-batched-tokens', '100', '--watermark', '0.5'],
  );
  assert.equal(config.numGpuBlocksOverride, 512);
  assert.equal(config.blockSize, 16);
  assert.equal(config.maxNumSeqs, 4);
  assert.equal(config.enablePrefixCaching, false);
  assert.equal(config.speedupRatio, 2.5);
  assert.equal(config.maxNumBatchedTokens, 8192, 'the flag is replaced by the default');
  assert.equal(config.watermark, 0.01);
  assert.equal(withExtraEngineArgs(run(['mocker', '--max-num-seqs', '3']).config).maxNumSeqs, 3, 'without the file the flags apply');
});

test('what upstream refuses, and values the flags would refuse, fail naming the field', () => {
  fails([1, 2], /extra engine args must be a JSON object$/);
  fails('null', /extra engine args must be a JSON object$/);
  fails('{not json', /--extra-engine-args .*args-\d+\.json: /);
  fails({ is_prefill: true, is_decode: true }, /is_prefill and is_decode cannot both be true/);
  fails({ gpu_blocks: 3 }, /unknown field 'gpu_blocks' \(known: num_gpu_blocks, /);
  fails({ block_size: 0 }, /: block_size must be an integer/);
  fails({ max_num_seqs: [1] }, /: max_num_seqs must be a single value/);
  fails({ engine_type: 'tgi' }, /: engine_type must be one of vllm, sglang, trtllm/);
});

test('legacy is_prefill / is_decode name the role', () => {
  assert.equal(applied({ is_prefill: false }).workerType, undefined, 'no role named: the mocker stays aggregated');
  assert.equal(applied({ is_prefill: true }).workerType, 'prefill');
  assert.equal(applied({ is_decode: true }).workerType, 'decode');
});

test('a mocker started with the file serves with its settings', async () => {
  const { service } = await serveInjected(['--extra-engine-args', file({ block_size: 16, num_gpu_blocks: 256, speedup_ratio: 50 })]);
  try {
    assert.equal(service.models.get('Qwen/Qwen3-0.6B').card.kvCacheBlockSize, 16);
    assert.equal(service.engines[0]!.stats().kvTotalBlocks, 256);
  } finally {
    await service.stop();
  }
});
