// Worker ids in a JSON body, read exactly (the routing headers themselves are the pipeline's:
// pipeline/preprocess/routing-headers.ts, shared with the gRPC frontend).

const ID_KEYS = ['backend_instance_id', 'prefill_worker_id', 'decode_worker_id'];
const EXACT_ID = /"(backend_instance_id|prefill_worker_id|decode_worker_id)"\s*:\s*(\d{16,20})(?=\s*[,}])/g;

const rounded = (value: unknown): boolean => typeof value === 'number' && !Number.isSafeInteger(value);

/**
 * JSON.parse rounds integers above 2^53; worker ids in `nvext` are often that large. Re-read them
 * from the raw text as decimal strings. Only a body whose parsed nvext holds such a rounded id
 * pays for reading its text again.
 */
export function restoreExactIds(body: unknown, raw: string): void {
  const nvext = (body as { nvext?: Record<string, unknown> } | null)?.nvext;
  if (!nvext || typeof nvext !== 'object' || !ID_KEYS.some((key) => rounded(nvext[key]))) return;
  for (const m of raw.matchAll(EXACT_ID)) {
    const [, key, digits] = m;
    if (rounded(nvext[key!])) nvext[key!] = digits;
  }
}
