// --planner-profile-data: profiles written by numpy (fixtures/, made with np.savez,
// np.savez_compressed with a float32 Fortran-ordered transposed grid, and a profiler directory of
// prefill_raw_data.json + selected_decode_interpolation/raw_data.npz) drive the mocker's step times.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { loadPlannerProfile, POLYNOMIAL_TIMING, readNpz } from '../../../src/engines/mocker/index.js';
import { ValidationError } from '../../../src/protocols/index.js';
import { serveInjected } from '../../support/in-process.js';
import { fetchFor } from '../../support/injected-fetch.js';
import { REPO_ROOT } from '../../support/processes.js';

const FIXTURES = path.join(REPO_ROOT, 'test/engines/mocker/fixtures');
const state = (activeKvTokens: number, meanContextLength: number) => ({ activeFraction: 0.5, activeKvTokens, meanContextLength });

test('np.savez arrays read back exactly', () => {
  const arrays = readNpz(readFileSync(path.join(FIXTURES, 'profile.npz')), 'profile.npz');
  assert.deepEqual([...arrays.keys()].sort(), ['decode_active_kv_tokens', 'decode_context_length', 'decode_itl', 'prefill_isl', 'prefill_ttft_ms']);
  assert.deepEqual(arrays.get('decode_itl')!.shape, [2, 3]);
  assert.deepEqual([...arrays.get('decode_itl')!.data], [5, 6, 8, 10, 12, 16]);
  assert.deepEqual([...arrays.get('prefill_isl')!.data], [100, 1000, 4000], 'int64');
});

for (const form of ['profile.npz', 'profile-compressed.npz', 'profiler-dir']) {
  test(`${form}: TTFT interpolated over the prompt length, ITL over active KV tokens × context length`, () => {
    const timing = loadPlannerProfile(path.join(FIXTURES, form));
    assert.equal(timing.prefillMs(0), 0);
    assert.equal(timing.prefillMs(1000), 50);
    assert.equal(timing.prefillMs(2500), 125, 'between 1000 (50 ms) and 4000 (200 ms)');
    assert.equal(timing.prefillMs(5000), 250, 'the last segment extended');
    assert.equal(timing.decodeMs(state(0, 100)), 5);
    assert.equal(timing.decodeMs(state(10000, 2000)), 16);
    assert.equal(timing.decodeMs(state(5000, 550)), (5 + 6 + 10 + 12) / 4, 'bilinear in the middle of a cell');
    assert.equal(timing.decodeMs(state(50000, 5000)), 16, 'clamped to the grid');
  });
}

test('an unusable profile fails naming the file and what is wrong', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'profile-'));
  try {
    const notZip = path.join(dir, 'x.npz');
    writeFileSync(notZip, 'hello');
    assert.throws(() => loadPlannerProfile(notZip), (err: unknown) => err instanceof ValidationError && /x\.npz: not a readable \.npz file/.test(err.message));
    assert.throws(() => loadPlannerProfile(dir), (err: unknown) => err instanceof ValidationError && /no prefill profile/.test(err.message));
    writeFileSync(path.join(dir, 'prefill_raw_data.json'), JSON.stringify({ prefill_isl: [1, 2] }));
    writeFileSync(path.join(dir, 'decode_raw_data.json'), JSON.stringify({ decode_active_kv_tokens: [0, 1], decode_context_length: [1], decode_itl: [[1, 2, 3]] }));
    assert.throws(() => loadPlannerProfile(dir), (err: unknown) => err instanceof ValidationError && /missing array prefill_ttft_ms or prefill_ttft/.test(err.message));
    writeFileSync(path.join(dir, 'prefill_raw_data.json'), JSON.stringify({ prefill_isl: [1, 2], prefill_ttft: [3, 4] }));
    assert.throws(() => loadPlannerProfile(dir), (err: unknown) => err instanceof ValidationError && /decode_itl must be a 2×1 grid/.test(err.message));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('serve with a profile: its engines step on the profile, not the polynomial', async () => {
  const { service, baseUrl } = await serveInjected(['--planner-profile-data', path.join(FIXTURES, 'profile.npz'), '--speedup-ratio', '100']);
  try {
    const timing = service.engines[0]!.options.timing;
    assert.notEqual(timing, POLYNOMIAL_TIMING);
    assert.equal(timing.prefillMs(1000), 50);
    const res = await fetchFor(baseUrl)(`${baseUrl}/v1/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'Qwen/Qwen3-0.6B', prompt: 'hi', max_tokens: 3 }) });
    assert.equal(res.status, 200);
  } finally {
    await service.stop();
  }
});
