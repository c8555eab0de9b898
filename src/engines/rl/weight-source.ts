// Where an update's weights come from. The filesystem transport is the one a worker without GPUs
// can honour: the trainer writes a checkpoint to shared storage, then a marker file once it is
// complete; the worker takes the update only when both are there. NCCL needs a CUDA collective
// that no dynamo-ts worker has, so it is refused with the reason.
import { stat } from 'node:fs/promises';
import { join } from 'node:path';

/** Why a transport or an update cannot be taken; its message is the worker's answer. */
export class RlRefusal extends Error {}

const NO_NCCL = 'nccl transport: not available on this worker (no CUDA/NCCL collective in dynamo-ts workers); use the filesystem backend';

/** The transport backends, and what a worker does to set one up. */
export const TRANSPORT_BACKENDS = {
  filesystem: { ready: true as const },
  nccl: { refusal: NO_NCCL },
} as const;

export type TransportBackend = keyof typeof TRANSPORT_BACKENDS;

export function transportBackend(value: unknown): TransportBackend {
  if (typeof value === 'string' && value in TRANSPORT_BACKENDS) return value as TransportBackend;
  throw new RlRefusal(`unsupported transport backend ${JSON.stringify(value ?? null)}: expected filesystem or nccl`);
}

/** Refuses a backend this worker cannot run. */
export function assertRunnable(backend: TransportBackend): void {
  const row: { ready?: true; refusal?: string } = TRANSPORT_BACKENDS[backend];
  if (row.refusal !== undefined) throw new RlRefusal(row.refusal);
}

/** `transport.filesystem` of an update: the checkpoint's path and the marker that says it is complete. */
export interface FilesystemSource {
  path: string;
  requireMarker?: string;
}

export function filesystemSource(transport: Record<string, unknown>): FilesystemSource {
  const fs = transport.filesystem;
  if (fs === null || typeof fs !== 'object' || Array.isArray(fs)) throw new RlRefusal('filesystem transport: `transport.filesystem` must be an object with `path`');
  const { path, require_marker: marker } = fs as Record<string, unknown>;
  if (typeof path !== 'string' || path.length === 0) throw new RlRefusal('filesystem transport: `path` must be a non-empty string');
  if (marker !== undefined && marker !== null && (typeof marker !== 'string' || marker.length === 0)) {
    throw new RlRefusal('filesystem transport: `require_marker` must be a non-empty string');
  }
  return { path, requireMarker: typeof marker === 'string' ? marker : undefined };
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/** The checkpoint is there and, when a marker is required, complete. */
export async function checkFilesystemSource(source: FilesystemSource): Promise<void> {
  if (!(await exists(source.path))) throw new RlRefusal(`filesystem transport: path '${source.path}' not found`);
  if (source.requireMarker !== undefined && !(await exists(join(source.path, source.requireMarker)))) {
    throw new RlRefusal(`filesystem transport: require_marker '${source.requireMarker}' not found`);
  }
}
