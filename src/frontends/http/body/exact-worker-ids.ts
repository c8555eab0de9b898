// Worker ids in a JSON body, read exactly (the routing headers themselves are the pipeline's:
// pipeline/preprocess/routing-headers.ts, shared with the gRPC frontend).

const EXACT_ID = /"(backend_instance_id|prefill_worker_id|decode_worker_id)"\s*:\s*(\d{16,20})(?=\s*[,}])/g;

/**
 * JSON.parse rounds integers above 2^53; worker ids in `nvext` are often that large. Re-read them
 * from the raw text as decimal strings. Cheap: only bodies that mention such a key with a long
 * number pay for the scan.
 */
export function restoreExactIds(body: unknown, raw: string): void {
  const nvext = (body as { nvext?: Record<string, unknown> } | null)?.nvext;
  if (!nvext || typeof nvext !== 'object') return;
  for (const m of raw.matchAll(EXACT_ID)) {
    const [, key, digits] = m;
    if (typeof nvext[key!] === 'number' && !Number.isSafeInteger(nvext[key!])) nvext[key!] = digits;
  }
}
