// One process writing to and reading from a file response store beside others (forked by
// file-store-processes.live.test.ts): argv dir, writer index, writers, count, maxEntries. It stores
// `count` responses, after each reading one of any writer's; prints what it saw as one JSON line.
import { FileResponseStore } from '../../src/frontends/http/responses/store/file-store.js';
import type { StoredResponse } from '../../src/frontends/http/responses/store/index.js';

const [dir, index, writers, count, maxEntries] = process.argv.slice(2);
const body = 'x'.repeat(20_000);

const responseOf = (id: string): StoredResponse => ({ response: { id, output: [{ type: 'message', text: body }] }, inputItems: [], events: [['response.completed', id]], owner: null });

const store = await FileResponseStore.open({ path: dir!, maxEntries: Number(maxEntries), ttlSecs: 600 });
let found = 0;
const wrong: string[] = [];
for (let i = 0; i < Number(count); i++) {
  await store.put(responseOf(`resp_w${index}_${i}`));
  const id = `resp_w${Math.floor(Math.random() * Number(writers))}_${Math.floor(Math.random() * (i + 1))}`;
  try {
    const read = await store.get(id);
    if (read === undefined) continue;
    if (JSON.stringify(read) === JSON.stringify(responseOf(id))) found++;
    else wrong.push(`${id}: another response`);
  } catch (err) {
    wrong.push(`${id}: ${(err as Error).message}`);
  }
}
await store.close();
console.log(JSON.stringify({ found, wrong }));
