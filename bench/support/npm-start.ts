// How `npm start` runs the server, read from a checkout's package.json start script: the
// environment it sets and the node flags it passes. The bench starts every dynamo-ts process the
// same way (the container image gives each subcommand the same flags and environment), so its
// figures are those of the product as started (each checkout as its own script says).
import { readFileSync } from 'node:fs';
import path from 'node:path';

export interface StartShape {
  env: Record<string, string>;
  nodeArgs: string[];
}

/** `[NAME=value ...] [exec] node [--flag ...] bin/...` → its environment and node flags. */
export function npmStartShape(checkout: string): StartShape {
  const pkg = JSON.parse(readFileSync(path.join(checkout, 'package.json'), 'utf8')) as { scripts?: { start?: string } };
  const words = (pkg.scripts?.start ?? '').split(/\s+/).filter(Boolean);
  const env: Record<string, string> = {};
  let i = 0;
  for (; i < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i]!); i++) {
    const eq = words[i]!.indexOf('=');
    env[words[i]!.slice(0, eq)] = words[i]!.slice(eq + 1);
  }
  if (words[i] === 'exec') i++;
  if (words[i] !== 'node') throw new Error(`cannot read how ${checkout}'s npm start runs node: ${pkg.scripts?.start ?? '(no start script)'}`);
  const nodeArgs: string[] = [];
  for (i++; i < words.length && words[i]!.startsWith('-'); i++) nodeArgs.push(words[i]!);
  return { env, nodeArgs };
}
