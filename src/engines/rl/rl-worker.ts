// A worker's `rl` endpoint: one envelope `{op, body}` in, one status payload out. It pauses and
// resumes the worker's engines, sets up weight transports and takes weight updates (base model or
// LoRA adapters), and keeps what it applied so `describe` and the engines' answers can report it.
import { isPauseMode, RL_OPS, type PauseMode, type RlOp, type RlWorkerPayload } from '../../protocols/index.js';
import {
  assertRunnable,
  checkFilesystemSource,
  filesystemSource,
  RlRefusal,
  transportBackend,
  type FilesystemSource,
  type TransportBackend,
} from './weight-source.js';

/** What the endpoint drives: one engine (a data-parallel rank) of the worker. */
export interface RlEngineControl {
  pause(mode: PauseMode): Promise<void>;
  resume(): void;
  /** Drops cached prefixes no request holds. */
  clearPrefixCache(): number;
  /** The weight version the engine's answers report. */
  weightVersion: string | null;
}

/** Who the worker is, for `describe`. */
export interface RlWorkerIdentity {
  engine: string;
  model: string;
  namespace: string;
  component: string;
  instanceId: bigint;
}

/** The version a worker serves before any update. */
export const INITIAL_WEIGHT_VERSION = 'initial';

type Body = Record<string, unknown>;

interface Transport {
  backend: TransportBackend;
  ready: boolean;
}

interface LoraAdapter {
  version: string;
  path: string;
}

const LORA_OPS = ['load', 'swap', 'unload'] as const;
type LoraOp = (typeof LORA_OPS)[number];

/** An update's target: the base model, or one LoRA adapter and what to do with it. */
type Target = { kind: 'base' } | { kind: 'lora'; name: string; op: 'load' | 'swap' } | { kind: 'lora'; name: string; op: 'unload' };

function objectOf(value: unknown, what: string): Body {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new RlRefusal(`\`${what}\` must be an object`);
  return value as Body;
}

function boolOf(value: unknown, what: string, fallback: boolean): boolean {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'boolean') throw new RlRefusal(`\`${what}\` must be a boolean`);
  return value;
}

function pauseModeOf(value: unknown, what: string): PauseMode {
  if (value === undefined || value === null) return 'keep';
  if (!isPauseMode(value)) throw new RlRefusal(`\`${what}\` must be one of keep, wait, abort`);
  return value;
}

function targetOf(value: unknown): Target {
  const target = objectOf(value, 'target');
  if (target.kind === 'base') return { kind: 'base' };
  if (target.kind !== 'lora') throw new RlRefusal('`target.kind` must be base or lora');
  if (typeof target.name !== 'string' || target.name.length === 0) throw new RlRefusal('`target.name` must name the LoRA adapter');
  const op = target.op ?? 'load';
  if (!(LORA_OPS as readonly unknown[]).includes(op)) throw new RlRefusal('`target.op` must be one of load, swap, unload');
  return { kind: 'lora', name: target.name, op: op as LoraOp } as Target;
}

export class RlWorker {
  private version = INITIAL_WEIGHT_VERSION;
  private paused: PauseMode | null = null;
  private readonly transports = new Map<string, Transport>();
  private readonly loras = new Map<string, LoraAdapter>();

  private readonly ops: Readonly<Record<RlOp, (body: Body) => Promise<RlWorkerPayload>>> = {
    describe: async () => this.describe(),
    pause: (body) => this.pause(body),
    resume: async () => this.resume(),
    init_transport: (body) => this.initTransport(body),
    update_weights: (body) => this.updateWeights(body),
  };

  constructor(
    private readonly engines: readonly RlEngineControl[],
    private readonly identity: RlWorkerIdentity,
  ) {
    for (const engine of engines) engine.weightVersion = this.version;
  }

  /** The answer to one envelope; a refused or failed op answers `status: error` with the reason. */
  async handle(request: unknown): Promise<RlWorkerPayload> {
    try {
      const envelope = objectOf(request, 'request');
      const op = envelope.op;
      if (typeof op !== 'string' || !(op in this.ops)) {
        throw new RlRefusal(`unknown rl op ${JSON.stringify(op ?? null)}: expected one of ${RL_OPS.join(', ')}`);
      }
      const body = envelope.body === undefined || envelope.body === null ? {} : objectOf(envelope.body, 'body');
      return await this.ops[op as RlOp](body);
    } catch (err) {
      return { status: 'error', message: (err as Error).message };
    }
  }

  private describe(): RlWorkerPayload {
    const { engine, model, namespace, component, instanceId } = this.identity;
    return {
      status: 'ok',
      engine,
      model,
      namespace,
      component,
      instance_id: instanceId,
      ops: [...RL_OPS],
      weight_version: this.version,
      paused: this.paused !== null,
      pause_mode: this.paused,
      transports: [...this.transports].map(([id, t]) => ({ transport_id: id, backend: t.backend, ready: t.ready })),
      loras: [...this.loras].map(([name, lora]) => ({ name, version: lora.version, path: lora.path })),
    };
  }

  private async pause(body: Body): Promise<RlWorkerPayload> {
    const mode = pauseModeOf(body.mode, 'mode');
    const clearCache = boolOf(body.clear_cache, 'clear_cache', false);
    this.paused = mode;
    await Promise.all(this.engines.map((e) => e.pause(mode)));
    if (clearCache) this.clearCaches();
    return { status: 'ok', version: this.version };
  }

  private resume(): RlWorkerPayload {
    this.paused = null;
    for (const engine of this.engines) engine.resume();
    return { status: 'ok' };
  }

  private async initTransport(body: Body): Promise<RlWorkerPayload> {
    const backend = transportBackend(body.backend);
    const id = typeof body.transport_id === 'string' && body.transport_id.length > 0 ? body.transport_id : backend;
    assertRunnable(backend);
    // Filesystem needs no setup: the transport is ready as soon as it is named.
    this.transports.set(id, { backend, ready: true });
    return { status: 'ok', transport_id: id, ready: true };
  }

  private async updateWeights(body: Body): Promise<RlWorkerPayload> {
    const version = body.version;
    if (typeof version !== 'string' || version.length === 0) throw new RlRefusal('`version` must be a non-empty string');
    const target = targetOf(body.target);
    const pauseMode = pauseModeOf(body.pause_mode, 'pause_mode');
    const clearCache = boolOf(body.clear_cache, 'clear_cache', true);
    return this.whilePaused(pauseMode, clearCache, await this.update(target, version, body.transport));
  }

  /** The change an update makes, once its weights are checked (an unload needs none). */
  private async update(target: Target, version: string, transportField: unknown): Promise<() => RlWorkerPayload> {
    if (target.kind === 'lora' && target.op === 'unload') return () => this.unloadLora(target.name, version);
    const transport = objectOf(transportField, 'transport');
    const backend = transportBackend(transport.backend);
    assertRunnable(backend);
    const source = filesystemSource(transport);
    await checkFilesystemSource(source);
    if (target.kind === 'lora') return () => this.applyLora(target.name, target.op, version, source);
    return () => {
      this.version = version;
      for (const engine of this.engines) engine.weightVersion = version;
      return { status: 'ok', message: 'Updated weights from filesystem', version };
    };
  }

  private applyLora(name: string, op: 'load' | 'swap', version: string, source: FilesystemSource): RlWorkerPayload {
    const loaded = this.loras.has(name);
    if (op === 'load' && loaded) throw new RlRefusal(`LoRA adapter '${name}' is already loaded; use op swap to replace it`);
    if (op === 'swap' && !loaded) throw new RlRefusal(`LoRA adapter '${name}' is not loaded; use op load`);
    this.loras.set(name, { version, path: source.path });
    const verb = op === 'load' ? 'Loaded' : 'Swapped';
    return { status: 'ok', message: `${verb} LoRA adapter '${name}' from filesystem`, version, lora_name: name };
  }

  private unloadLora(name: string, version: string): RlWorkerPayload {
    if (!this.loras.delete(name)) throw new RlRefusal(`LoRA adapter '${name}' is not loaded`);
    return { status: 'ok', message: `Unloaded LoRA adapter '${name}'`, version, lora_name: name };
  }

  /**
   * Applies an update with generation paused: a worker the trainer already paused stays as it is;
   * otherwise it pauses with `mode` for the update and resumes after it.
   */
  private async whilePaused(mode: PauseMode, clearCache: boolean, apply: () => RlWorkerPayload): Promise<RlWorkerPayload> {
    const pausedHere = this.paused === null;
    if (pausedHere) await Promise.all(this.engines.map((e) => e.pause(mode)));
    try {
      const result = apply();
      if (clearCache) this.clearCaches();
      return result;
    } finally {
      if (pausedHere) for (const engine of this.engines) engine.resume();
    }
  }

  private clearCaches(): void {
    for (const engine of this.engines) engine.clearPrefixCache();
  }
}
