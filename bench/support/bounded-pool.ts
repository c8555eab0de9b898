// Runs `count` jobs with at most `width` in flight, results in job order.

export async function pool<T>(count: number, width: number, run: (i: number) => Promise<T>, onProgress: (done: number) => void = () => undefined): Promise<T[]> {
  const out: T[] = new Array(count);
  let next = 0;
  let done = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) {
        const i = next++;
        out[i] = await run(i);
        onProgress(++done);
      }
    }),
  );
  return out;
}
