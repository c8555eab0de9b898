// glibc malloc settings for a long-running gateway: buffers over 128 KiB (request bodies, big
// prompts) are mapped on their own and handed back to the system when freed, freed memory at the
// top of the heap is trimmed early, and the process's threads (libuv pool, parse, template and
// preprocessing threads) share two arenas instead of one each. With the defaults a burst of huge
// requests leaves RSS well above where it started (bench/RESULTS.md, "Memory after hostile input").
// glibc reads them once, when a process starts: `npm start`, the container image and the frontend
// pool's processes set them; a process started by hand gets them from its environment or not at all.

/** The settings, as environment variables. */
export const MALLOC_TUNING: Readonly<Record<string, string>> = Object.freeze({
  MALLOC_ARENA_MAX: '2',
  MALLOC_MMAP_THRESHOLD_: '131072',
  MALLOC_TRIM_THRESHOLD_: '131072',
});

/** The settings `env` does not set itself: an operator's own value wins. */
export function mallocTuningFor(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(MALLOC_TUNING).filter(([name]) => env[name] === undefined));
}

