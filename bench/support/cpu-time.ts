// CPU time of this process and the median of rounds, as the side-by-side benches report them.

/** User + system CPU µs of this process (all its threads, the libuv pool's included). */
export function cpuMicros(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}
