// The `worker_selection` section of a router policy file: named, parameterized instances of the
// worker-selection policy types the router has, and which instance each stage uses. Then the
// stage choices with upstream's precedence: the stage's flag (prefill and decode), then
// DYN_ROUTER_WORKER_SELECTION_POLICY, then the file's stage selection, then the built-in selector.
import { ConfigError, type Config } from '../../config/index.js';
import type { WorkerType } from '../../protocols/index.js';
import {
  BUILT_IN_SELECTION,
  WORKER_SELECTION_TYPES,
  isWorkerSelectionType,
  selectionParameters,
  type WorkerSelectionChoice,
} from '../../router/index.js';
import type { YamlNode } from './yaml-node.js';

/** The stages a file may select for, in dynamo-ts's worker roles; upstream's `encode` has no workers here. */
const STAGES: readonly WorkerType[] = ['aggregated', 'prefill', 'decode'];

export interface SelectionCatalog {
  readonly instances: ReadonlyMap<string, WorkerSelectionChoice>;
  /** The file's instance name per stage, when it names one. */
  readonly stages: Readonly<Partial<Record<WorkerType, string>>>;
}

export const NO_CATALOG: SelectionCatalog = { instances: new Map(), stages: {} };

/** The instance each stage uses; null: the built-in selector. */
export type StageSelections = Readonly<Record<WorkerType, WorkerSelectionChoice | null>>;

function readInstance(node: YamlNode): WorkerSelectionChoice {
  const f = node.fields(['name', 'type', 'parameters']);
  const name = f.get('name')?.identifier('instance') ?? node.fail('an instance needs a name');
  if (name === BUILT_IN_SELECTION) f.get('name')!.fail(`the instance name '${BUILT_IN_SELECTION}' is reserved for the built-in selector`);
  const typeNode = f.get('type') ?? node.fail(`instance ${name} needs a type (one of ${WORKER_SELECTION_TYPES.join(', ')})`);
  const raw = typeNode.string();
  const type = isWorkerSelectionType(raw) ? raw : typeNode.fail(`instance ${name} has unknown policy type '${raw}'; dynamo-ts has: ${WORKER_SELECTION_TYPES.join(', ')}`);
  const specs = selectionParameters(type);
  const parameters: Record<string, number> = {};
  const given = f.get('parameters');
  if (given !== undefined && !given.isNull) {
    for (const [key, value] of given.fields(Object.keys(specs))) {
      const spec = specs[key]!;
      parameters[key] = value.number({ integer: spec.kind === 'integer', min: spec.min, max: spec.max });
    }
  }
  return { type, name, parameters };
}

export function readSelectionCatalog(node: YamlNode): SelectionCatalog {
  const f = node.fields([...STAGES, 'encode', 'instances']);
  f.get('encode')?.fail('dynamo-ts has no encode workers to select for');
  const instances = new Map<string, WorkerSelectionChoice>();
  for (const item of f.get('instances')?.items() ?? []) {
    const choice = readInstance(item);
    if (instances.has(choice.name)) item.fail(`duplicate instance ${choice.name}`);
    instances.set(choice.name, choice);
  }
  const stages: Partial<Record<WorkerType, string>> = {};
  for (const stage of STAGES) {
    const selected = f.get(stage);
    if (selected === undefined) continue;
    const name = selected.string();
    if (name !== BUILT_IN_SELECTION && !instances.has(name)) selected.fail(`'${name}' is not a configured instance (${describeInstances(instances)})`);
    stages[stage] = name;
  }
  if (instances.size === 0 && Object.keys(stages).length === 0) node.fail(`must define an instance or select one for ${STAGES.join(', ')}`);
  return { instances, stages };
}

function describeInstances(instances: ReadonlyMap<string, unknown>): string {
  const names = [...instances.keys()];
  return names.length === 0 ? `none configured; '${BUILT_IN_SELECTION}' is the built-in selector` : `instances: ${names.join(', ')}; '${BUILT_IN_SELECTION}' is the built-in selector`;
}

/** Each stage's instance after the flags' precedence; a flag naming no configured instance fails startup. */
export function stageSelections(config: Config, catalog: SelectionCatalog): StageSelections {
  const named = (name: string | undefined, origin: string): string | undefined => {
    const trimmed = name?.trim();
    if (!trimmed) return undefined;
    if (trimmed !== BUILT_IN_SELECTION && !catalog.instances.has(trimmed)) {
      throw new ConfigError(`${origin} ${trimmed} is not a worker_selection instance of --router-policy-config (${describeInstances(catalog.instances)})`);
    }
    return trimmed;
  };
  const global = named(config.routerWorkerSelectionPolicy, 'DYN_ROUTER_WORKER_SELECTION_POLICY');
  const chosen: Record<WorkerType, string | undefined> = {
    aggregated: global ?? catalog.stages.aggregated,
    prefill: named(config.routerPrefillPolicy, '--router-prefill-policy') ?? global ?? catalog.stages.prefill,
    decode: named(config.routerDecodePolicy, '--router-decode-policy') ?? global ?? catalog.stages.decode,
  };
  const choice = (name: string | undefined): WorkerSelectionChoice | null =>
    name === undefined || name === BUILT_IN_SELECTION ? null : catalog.instances.get(name)!;
  return { aggregated: choice(chosen.aggregated), prefill: choice(chosen.prefill), decode: choice(chosen.decode) };
}
