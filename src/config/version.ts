import { readFileSync } from 'node:fs';

let cached: string | undefined;

/** The package version from package.json (this file sits at dist/src/config/ once built). */
export function packageVersion(): string {
  if (cached === undefined) {
    const raw = readFileSync(new URL('../../../package.json', import.meta.url), 'utf8');
    cached = (JSON.parse(raw) as { version: string }).version;
  }
  return cached;
}

export function versionText(): string {
  return `dynamo-ts ${packageVersion()}`;
}
