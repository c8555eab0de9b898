// Discovery reconnect delays: 50 ms doubling up to 5 s (less up to 20% jitter), reset after success.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Backoff, watchBackoff } from '../../../src/runtime/discovery/backoff.js';

test('backoff grows from 50 ms to a 5 s cap and resets', () => {
  const b = new Backoff();
  const delays = Array.from({ length: 10 }, () => b.next());
  const bases = [50, 100, 200, 400, 800, 1600, 3200, 5000, 5000, 5000];
  delays.forEach((d, i) => assert.ok(d <= bases[i]! && d >= bases[i]! * 0.8, `delay ${i}: ${d}`));
  b.reset();
  assert.ok(b.next() <= 50);
  let w = watchBackoff();
  for (let i = 0; i < 12; i++) w = w.next(undefined);
  assert.ok(w.duration <= 5000 && w.duration >= 4000);
});
