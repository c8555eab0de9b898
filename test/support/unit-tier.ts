/**
 * The unit tier: every test file outside test/e2e*\/ not named *.live.test.ts. Its files start no process and open
 * no port or connection (test/tiers.test.ts reads their imports; test/support/unit-tier-trap.ts fails such calls).
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';

export function isUnitTier(file: string): boolean {
  return !file.endsWith('.live.test.ts') && !/^e2e(-runtime)?\//.test(file);
}

/** Every test file under `root` (the test/ folder), relative to it, sorted. */
export function testFiles(root: string, dir = root): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return testFiles(root, full);
      return entry.name.endsWith('.test.ts') ? [path.relative(root, full)] : [];
    })
    .sort();
}
