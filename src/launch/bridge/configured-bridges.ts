// The bridges of an --upstream-config file, run by the frontend itself on its own runtime: each
// upstream a sibling instance, as `worker openai` runs them. When the file changes it is read
// again and the running set follows it: new upstreams start, removed ones stop, changed ones
// restart. A file that turns invalid is reported and the running set is kept.
import { readFileSync } from 'node:fs';
import { ConfigError, type Config } from '../../config/index.js';
import type { UpstreamInput } from '../../engines/openai-bridge/index.js';
import { loadDefaultModelCard, loadModelCard, slugify } from '../../models/index.js';
import type { Logger } from '../../observability/index.js';
import type { DistributedRuntime } from '../../runtime/index.js';
import { WatchedFile } from '../watched-file.js';
import { bridgeTokenizer, startBridgedUpstream, type BridgedUpstream, type BridgeModel } from './bridge.js';
import { parseUpstreamConfig, type ConfiguredModel, type ConfiguredUpstream, type UpstreamConfig } from './upstream-config.js';
import { VLLM_BLOCK_SIZE } from './worker-openai.js';

interface Running {
  key: string;
  upstream: BridgedUpstream;
}

export class ConfiguredBridges {
  private readonly running = new Map<string, Running>();
  /** Loaded models by name and folder: a tokenizer is loaded once. */
  private readonly models = new Map<string, { model: BridgeModel; tokenizer: ReturnType<typeof bridgeTokenizer> }>();
  private readonly watched: WatchedFile;
  /** Reconciliations run one after another. */
  private chain: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly file: string,
    private readonly config: Config,
    private readonly root: DistributedRuntime,
    private readonly logger: Logger,
  ) {
    this.watched = new WatchedFile(file, {
      changed: () => void this.enqueue(() => this.reload()),
      missing: (err) => this.logger.warn({ file, err: err.message }, 'upstream config file is gone; keeping the running upstreams'),
    });
  }

  /** Input of upstreams that do not say: the engine's own chat processing with --dyn-chat-processor vllm|sglang. */
  private get defaultInput(): UpstreamInput {
    return this.config.dynChatProcessor === 'dynamo' ? 'tokens' : 'text';
  }

  /** Reads the file (an invalid one fails startup), starts its upstreams and watches it. */
  async start(): Promise<void> {
    this.watched.markRead();
    let parsed: UpstreamConfig;
    try {
      parsed = this.read();
    } catch (err) {
      throw new ConfigError(`--upstream-config ${this.file}: ${(err as Error).message}`);
    }
    await this.enqueue(() => this.apply(parsed));
    this.watched.start();
  }

  /** The running upstreams of `model`. */
  upstreamsOf(model: string): BridgedUpstream[] {
    return [...this.running.entries()].filter(([id]) => id.startsWith(`${model}\u0000`)).map(([, r]) => r.upstream);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.watched.close();
    await this.enqueue(async () => {
      for (const r of this.running.values()) await r.upstream.stop();
      this.running.clear();
    });
  }

  private enqueue(step: () => Promise<void>): Promise<void> {
    this.chain = this.chain.then(step).catch((err: Error) => this.logger.error({ file: this.file, err: err.message }, 'upstream config not applied'));
    return this.chain;
  }

  private read(): UpstreamConfig {
    return parseUpstreamConfig(readFileSync(this.file, 'utf8'), this.defaultInput);
  }

  private async reload(): Promise<void> {
    if (this.stopped) return;
    let parsed: UpstreamConfig;
    try {
      parsed = this.read();
    } catch (err) {
      this.logger.error({ file: this.file, err: (err as Error).message }, 'upstream config invalid; keeping the running upstreams');
      return;
    }
    await this.apply(parsed);
    this.logger.info({ file: this.file, upstreams: this.running.size }, 'upstream config reloaded');
  }

  /** Makes the running set what `parsed` lists. */
  private async apply(parsed: UpstreamConfig): Promise<void> {
    const wanted = new Map<string, { model: ConfiguredModel; spec: ConfiguredUpstream; key: string }>();
    for (const model of parsed.models) {
      for (const spec of model.upstreams) {
        const key = JSON.stringify([model.modelPath ?? null, spec, parsed.healthIntervalSecs, parsed.timeoutSecs]);
        wanted.set(`${model.name}\u0000${spec.url}`, { model, spec, key });
      }
    }
    for (const [id, r] of [...this.running]) {
      if (wanted.get(id)?.key === r.key) continue;
      await r.upstream.stop();
      this.running.delete(id);
    }
    for (const [id, w] of wanted) {
      if (this.stopped || this.running.has(id)) continue;
      const { model, tokenizer } = this.bridgeModel(w.model, parsed);
      const upstream = await startBridgedUpstream({ ...model, upstreamModel: w.spec.model ?? model.upstreamModel }, w.spec, this.root, tokenizer, this.logger);
      this.running.set(id, { key: w.key, upstream });
    }
  }

  private bridgeModel(m: ConfiguredModel, parsed: UpstreamConfig): { model: BridgeModel; tokenizer: ReturnType<typeof bridgeTokenizer> } {
    const folder = m.modelPath ?? this.config.modelPath;
    const cacheKey = JSON.stringify([m.name, folder ?? null, parsed.healthIntervalSecs, parsed.timeoutSecs]);
    const cached = this.models.get(cacheKey);
    if (cached) return cached;
    const opts = { displayName: m.name, kvCacheBlockSize: this.config.kvCacheBlockSize ?? VLLM_BLOCK_SIZE, migrationLimit: this.config.migrationLimit };
    const card = folder ? loadModelCard(folder, opts) : loadDefaultModelCard(opts);
    const model: BridgeModel = {
      card,
      // One component per model: routers gather a model's instances by endpoint.
      endpoint: { namespace: this.config.namespace || 'dynamo', component: `bridge-${slugify(m.name)}`, endpoint: 'generate' },
      upstreamModel: m.name,
      runtimeConfig: { tool_call_parser: null, reasoning_parser: null },
      responseTimeoutMs: parsed.timeoutSecs * 1000,
      healthIntervalMs: parsed.healthIntervalSecs * 1000,
    };
    const entry = { model, tokenizer: bridgeTokenizer(card) };
    this.models.set(cacheKey, entry);
    return entry;
  }
}
