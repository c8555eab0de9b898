// A small reader of the Prometheus text exposition, for tests that check families by name.
import assert from 'node:assert/strict';
import { fetchFor } from './injected-fetch.js';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
  samples: Sample[];
}

export async function scrape(baseUrl: string): Promise<string> {
  const res = await fetchFor(baseUrl)(`${baseUrl}/metrics`);
  assert.equal(res.status, 200);
  return res.text();
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** Families by name; a histogram's `_bucket`, `_sum` and `_count` samples belong to it. */
export function families(text: string): Map<string, Family> {
  const out = new Map<string, Family>();
  let current: Family | undefined;
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)/.exec(line);
    if (type) {
      current = { type: type[2] as Family['type'], samples: [] };
      out.set(type[1]!, current);
      continue;
    }
    const m = SAMPLE.exec(line);
    if (!m || !current) continue;
    const labels: Record<string, string> = {};
    for (const [, k, v] of (m[2] ?? '').matchAll(LABEL)) labels[k!] = v!;
    current.samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}
