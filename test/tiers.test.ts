import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { isUnitTier, testFiles } from './support/unit-tier.js';

// The unit tier (`npm run test:unit`, test/support/unit-tier.ts) starts no process and opens no port or connection;
// this guard reads its files' imports, and the tier runs with test/support/unit-tier-trap.ts, which fails any call
// that does so anyway.
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../test');

/** Source that starts a process or serves on a port. */
const LIVE_SOURCE = /node:child_process|\.listen\(|createServer\(|bindAsync\(|startServe\(|runFrontend\(|runMockers\(/;
/** What a unit-tier test may take from helpers that are live by their source: any other name counts as live. */
const PORTLESS_EXPORTS: Record<string, string[]> = {
  'support/in-process.ts': ['serveInjected', 'postJson', 'eventually', 'IN_PROCESS_ENV', 'inProcessConfig'],
  'support/http-with-engines.ts': ['injectedHttpWithEngines'],
  'support/processes.ts': ['REPO_ROOT', 'BIN'],
};
const SELF = 'tiers.test.ts';

/** Each relative import of `file` inside test/, with the names it takes. */
function testImports(file: string): { module: string; names: string[] }[] {
  const source = readFileSync(path.join(ROOT, file), 'utf8');
  return [...source.matchAll(/^import\s+(?:type\s+)?([^;]*?)\s+from\s+'(\.[^']+)'/gm)]
    .map(([, clause, spec]) => ({
      module: path.relative(ROOT, path.resolve(path.dirname(path.join(ROOT, file)), spec!.replace(/\.js$/, '.ts'))),
      names: [...clause!.matchAll(/\w+/g)].map(([name]) => name),
    }))
    .filter(({ module }) => !module.startsWith('..'));
}

/** Why `file` (a test or one of its helpers, followed through their imports) is live, or undefined. */
function liveReason(file: string, seen = new Set<string>()): string | undefined {
  if (seen.has(file)) return undefined;
  seen.add(file);
  if (LIVE_SOURCE.test(readFileSync(path.join(ROOT, file), 'utf8'))) return `${file} starts a process or serves on a port`;
  for (const { module, names } of testImports(file)) {
    const portless = PORTLESS_EXPORTS[module];
    if (portless) {
      const live = names.filter((name) => name !== 'type' && !portless.includes(name));
      if (live.length > 0) return `${file} uses ${live.join(', ')} from ${module}`;
      continue;
    }
    const reason = liveReason(module, seen);
    if (reason) return reason;
  }
  return undefined;
}

test('no unit-tier test starts a process or serves on a port through its helpers', () => {
  // This file names the patterns it looks for.
  const unit = testFiles(ROOT).filter((file) => isUnitTier(file) && file !== SELF);
  assert.ok(unit.length > 100, `only ${unit.length} unit-tier files found under ${ROOT}`);
  const live = unit.flatMap((file) => {
    const reason = liveReason(file);
    return reason ? [`${file}: ${reason} (name it *.live.test.ts)`] : [];
  });
  assert.deepEqual(live, []);
});
