// For in-process benches that compare this checkout with another build (--baseline DIR): each
// round runs the bench script again as a child per checkout (`--child ROOT`), alternating which
// goes first (A B, B A, ...), and the child loads that checkout's modules from ROOT/dist.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { median } from './cpu-time.js';

/** A module of the checkout at `root`, by its path under src/ (e.g. 'models/index.js'). */
export function checkoutModule<T>(root: string, rel: string): Promise<T> {
  return import(pathToFileURL(path.join(root, 'dist/src', rel)).href) as Promise<T>;
}

/** bench/compare.ts's ttft prompt `i`: about 1,000 Qwen3 tokens, different from the first word on. */
export function longPrompt(i: number): string {
  const sentences: string[] = [];
  for (let s = 0; s < 77; s++) sentences.push(`Report ${i}-${s}: the quick brown fox jumps over the lazy dog.`);
  return sentences.join(' ');
}

/**
 * A bench's two sides: as the child (`--child ROOT`), prints `measure(ROOT)` as JSON and exits;
 * otherwise runs `rounds` rounds over this checkout and, with `baseline`, that one, each in a fresh
 * process with `nodeArgs`, prints each round's figures and returns them by name ('this', 'baseline').
 */
export async function compareCheckouts<F>(
  scriptUrl: string,
  args: { child?: string; baseline?: string; rounds: string },
  nodeArgs: readonly string[],
  measure: (root: string) => Promise<F>,
): Promise<Map<string, F[]>> {
  if (args.child !== undefined) {
    process.stdout.write(`${JSON.stringify(await measure(args.child))}\n`);
    process.exit(0);
  }
  const script = fileURLToPath(scriptUrl);
  // dist/bench/<script>.js → the checkout's root.
  const checkouts: [string, string][] = [['this', path.resolve(path.dirname(script), '..', '..')]];
  if (args.baseline) checkouts.push(['baseline', path.resolve(args.baseline)]);
  const results = new Map<string, F[]>(checkouts.map(([name]) => [name, []]));
  for (let r = 0; r < Number(args.rounds); r++) {
    for (let k = 0; k < checkouts.length; k++) {
      const [name, root] = checkouts[(r + k) % checkouts.length]!;
      const out = execFileSync(process.execPath, [...nodeArgs, script, '--child', root], { encoding: 'utf8' });
      const figures = JSON.parse(out.trim().split('\n').at(-1)!) as F;
      results.get(name)!.push(figures);
      console.log(`round ${r + 1} ${name.padEnd(8)} ${JSON.stringify(figures, (_k, v: unknown) => (typeof v === 'number' ? Number(v.toFixed(2)) : v))}`);
    }
  }
  return results;
}

/** A markdown table of each figure's median over the rounds, a column per checkout. */
export function printMedians<F>(title: string, rows: readonly [string, keyof F][], results: Map<string, F[]>, digits: (key: keyof F) => number = () => 1): void {
  const names = [...results.keys()];
  console.log(`\n${title}\n| figure | ${names.join(' | ')} |\n|---|${names.map(() => '---|').join('')}`);
  for (const [label, key] of rows) {
    console.log(`| ${label} | ${names.map((n) => median(results.get(n)!.map((f) => f[key] as number)).toFixed(digits(key))).join(' | ')} |`);
  }
}

/** A checkout's tokenizer as `serve` builds it (the default prefix cache: 64 MiB, prompts from 1,024 characters) and its chat template, for the default model. */
export async function servedTokenizer(root: string) {
  const models = await checkoutModule<typeof import('../../src/models/index.js')>(root, 'models/index.js');
  const pre = await checkoutModule<typeof import('../../src/pipeline/preprocess/index.js')>(root, 'pipeline/preprocess/index.js');
  const files = await checkoutModule<typeof import('../../src/pipeline/preprocess/tokenizer/tokenizer-file.js')>(root, 'pipeline/preprocess/tokenizer/tokenizer-file.js');
  const card = models.loadDefaultModelCard();
  const cache = new pre.PrefixTokenCache(files.tokenizerFile(card.tokenizerJsonPath).boundaryTokens, 64 * 1024 * 1024, 1024);
  return { card, pre, cache, tokenizer: new pre.HfTokenizer(card.tokenizerJsonPath, { prefixCache: cache }), template: new pre.ChatTemplate(card) };
}
