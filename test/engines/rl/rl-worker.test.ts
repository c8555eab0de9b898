// The worker side of RL admin: one envelope in, one status payload out, driving the engines of
// the instance. Filesystem updates check the checkpoint and its marker before anything changes.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { RlWorker, type RlEngineControl } from '../../../src/engines/rl/index.js';
import type { PauseMode } from '../../../src/protocols/index.js';

/** An engine that records what it was told. */
class FakeEngine implements RlEngineControl {
  readonly calls: string[] = [];
  weightVersion: string | null = null;
  async pause(mode: PauseMode): Promise<void> {
    this.calls.push(`pause:${mode}`);
  }
  resume(): void {
    this.calls.push('resume');
  }
  clearPrefixCache(): number {
    this.calls.push('clear');
    return 0;
  }
}

const root = mkdtempSync(join(tmpdir(), 'rl-worker-'));
after(() => rmSync(root, { recursive: true, force: true }));

/** A checkpoint folder, with the marker file when `marker` is given. */
function checkpoint(name: string, marker?: string): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'model.safetensors'), 'weights');
  if (marker) writeFileSync(join(dir, marker), '');
  return dir;
}

function worker(engines = [new FakeEngine(), new FakeEngine()]) {
  return { engines, rl: new RlWorker(engines, { engine: 'mocker', model: 'm', namespace: 'ns', component: 'backend', instanceId: 7n }) };
}

const base = (version: string, path: string, marker?: string) => ({
  version,
  target: { kind: 'base' },
  transport: { backend: 'filesystem', filesystem: { path, ...(marker ? { require_marker: marker } : {}) } },
});

test('describe names the worker and what it serves', async () => {
  const { rl, engines } = worker();
  const d = await rl.handle({ op: 'describe', body: {} });
  assert.equal(d.status, 'ok');
  assert.equal(d.weight_version, 'initial');
  assert.equal(d.instance_id, 7n);
  assert.deepEqual(d.ops, ['describe', 'pause', 'resume', 'init_transport', 'update_weights']);
  assert.equal(d.paused, false);
  assert.deepEqual(engines.map((e) => e.weightVersion), ['initial', 'initial'], 'answers report the version from the start');
});

test('pause and resume reach every engine; pause answers the version; clear_cache clears', async () => {
  const { rl, engines } = worker();
  assert.deepEqual(await rl.handle({ op: 'pause', body: { mode: 'abort', clear_cache: true } }), { status: 'ok', version: 'initial' });
  assert.equal((await rl.handle({ op: 'describe' })).pause_mode, 'abort');
  assert.deepEqual(await rl.handle({ op: 'resume', body: {} }), { status: 'ok' });
  for (const e of engines) assert.deepEqual(e.calls, ['pause:abort', 'clear', 'resume']);
  assert.equal((await rl.handle({ op: 'pause' })).status, 'ok', 'mode defaults to keep');
  assert.equal(engines[0]!.calls.at(-1), 'pause:keep');
});

test('bad envelopes and options answer status error with the reason', async () => {
  const { rl } = worker();
  assert.match((await rl.handle({ op: 'routes' })).message!, /unknown rl op "routes": expected one of describe, pause/);
  assert.match((await rl.handle({ method: 'routes' })).message!, /unknown rl op null/);
  assert.match((await rl.handle('pause')).message!, /`request` must be an object/);
  assert.match((await rl.handle({ op: 'pause', body: { mode: 'later' } })).message!, /`mode` must be one of keep, wait, abort/);
  assert.match((await rl.handle({ op: 'pause', body: { clear_cache: 'yes' } })).message!, /`clear_cache` must be a boolean/);
});

test('init_transport: filesystem is ready at once, nccl is refused with the reason', async () => {
  const { rl } = worker();
  assert.deepEqual(await rl.handle({ op: 'init_transport', body: { transport_id: 'fs-step', backend: 'filesystem', filesystem: { require_marker: 'STABLE' } } }), {
    status: 'ok',
    transport_id: 'fs-step',
    ready: true,
  });
  const nccl = await rl.handle({ op: 'init_transport', body: { transport_id: 'rl-nccl', backend: 'nccl', nccl: { master_address: 'trainer-0', master_port: 29500, world_size: 9, rank_offset: 1 } } });
  assert.equal(nccl.status, 'error');
  assert.match(nccl.message!, /^nccl transport: not available on this worker/);
  assert.match((await rl.handle({ op: 'init_transport', body: { backend: 'nixl' } })).message!, /unsupported transport backend "nixl"/);
  const d = await rl.handle({ op: 'describe' });
  assert.deepEqual(d.transports, [{ transport_id: 'fs-step', backend: 'filesystem', ready: true }]);
});

test('update_weights from the filesystem: checks the path and the marker, then records the version', async () => {
  const { rl, engines } = worker();
  const ready = checkpoint('step_42', 'STABLE');
  const unfinished = checkpoint('step_43');
  assert.deepEqual(await rl.handle({ op: 'update_weights', body: base('step_43', unfinished, 'STABLE') }), {
    status: 'error',
    message: "filesystem transport: require_marker 'STABLE' not found",
  });
  assert.match((await rl.handle({ op: 'update_weights', body: base('x', join(root, 'missing')) })).message!, /path '.*missing' not found/);
  assert.equal((await rl.handle({ op: 'describe' })).weight_version, 'initial', 'a refused update changes nothing');
  assert.deepEqual(engines[0]!.calls, [], 'nor pauses anything');

  assert.deepEqual(await rl.handle({ op: 'update_weights', body: base('step_42', ready, 'STABLE') }), {
    status: 'ok',
    message: 'Updated weights from filesystem',
    version: 'step_42',
  });
  assert.equal((await rl.handle({ op: 'describe' })).weight_version, 'step_42');
  assert.deepEqual(engines.map((e) => e.weightVersion), ['step_42', 'step_42']);
  // Not paused by the trainer: paused (keep) for the update, cache cleared (the default), resumed.
  assert.deepEqual(engines[0]!.calls, ['pause:keep', 'clear', 'resume']);
});

test('an update while the trainer holds the worker paused leaves it paused', async () => {
  const { rl, engines } = worker();
  await rl.handle({ op: 'pause', body: { mode: 'wait' } });
  const res = await rl.handle({ op: 'update_weights', body: { ...base('step_1', checkpoint('s1')), pause_mode: 'abort', clear_cache: false } });
  assert.equal(res.status, 'ok');
  assert.deepEqual(engines[0]!.calls, ['pause:wait']);
  assert.equal((await rl.handle({ op: 'describe' })).paused, true);
});

test('update_weights refuses nccl, bad targets and a missing version', async () => {
  const { rl } = worker();
  const nccl = { version: 'v', target: { kind: 'base' }, transport: { backend: 'nccl', nccl: { transport_id: 'rl-nccl', names: ['w'] } } };
  assert.match((await rl.handle({ op: 'update_weights', body: nccl })).message!, /^nccl transport: not available/);
  assert.match((await rl.handle({ op: 'update_weights', body: { ...nccl, target: { kind: 'adapter' } } })).message!, /`target.kind` must be base or lora/);
  assert.match((await rl.handle({ op: 'update_weights', body: { target: { kind: 'base' } } })).message!, /`version` must be a non-empty string/);
  assert.match((await rl.handle({ op: 'update_weights', body: { version: 'v', target: { kind: 'base' }, transport: { backend: 'filesystem' } } })).message!, /`transport.filesystem` must be an object/);
});

test('LoRA load, swap and unload are recorded per adapter', async () => {
  const { rl } = worker();
  const lora = (op: string, version: string, path?: string) => ({
    op: 'update_weights',
    body: {
      version,
      target: { kind: 'lora', name: 'gsm8k', op },
      ...(path ? { transport: { backend: 'filesystem', filesystem: { path, require_marker: 'STABLE' } } } : {}),
      pause_mode: 'wait',
      clear_cache: false,
    },
  });
  const s42 = checkpoint('lora/step_42', 'STABLE');
  const s43 = checkpoint('lora/step_43', 'STABLE');
  assert.match((await rl.handle(lora('swap', 'step_42', s42))).message!, /'gsm8k' is not loaded; use op load/);
  assert.deepEqual(await rl.handle(lora('load', 'step_42', s42)), { status: 'ok', message: "Loaded LoRA adapter 'gsm8k' from filesystem", version: 'step_42', lora_name: 'gsm8k' });
  assert.match((await rl.handle(lora('load', 'step_43', s43))).message!, /already loaded; use op swap/);
  assert.equal((await rl.handle(lora('swap', 'step_43', s43))).message, "Swapped LoRA adapter 'gsm8k' from filesystem");
  assert.deepEqual((await rl.handle({ op: 'describe' })).loras, [{ name: 'gsm8k', version: 'step_43', path: s43 }]);
  assert.equal((await rl.handle({ op: 'describe' })).weight_version, 'initial', 'the base model keeps its version');
  assert.deepEqual(await rl.handle(lora('unload', 'step_44')), { status: 'ok', message: "Unloaded LoRA adapter 'gsm8k'", version: 'step_44', lora_name: 'gsm8k' });
  assert.deepEqual((await rl.handle({ op: 'describe' })).loras, []);
  assert.match((await rl.handle(lora('unload', 'step_45'))).message!, /'gsm8k' is not loaded/);
});
