import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { silenceClock, type SilenceCheck } from '../../src/router/silence-clock.js';

function check(name: string, fired: string[]): SilenceCheck {
  return { dueAt: 0, slot: -1, checkSilence: () => fired.push(name) };
}

describe('silenceClock', () => {
  it('checks only the streams still waiting once due, whichever left in between', async () => {
    const fired: string[] = [];
    const checks = ['a', 'b', 'c', 'd', 'e'].map((name) => check(name, fired));
    for (const c of checks) silenceClock.enter(c, 5);
    // From the middle, the end and the start: each leaver's place is taken by the last one.
    silenceClock.leave(checks[2]!);
    silenceClock.leave(checks[4]!);
    silenceClock.leave(checks[0]!);
    silenceClock.leave(checks[0]!);
    assert.deepEqual(checks.map((c) => c.slot >= 0), [false, true, false, true, false]);
    await sleep(40);
    assert.deepEqual(fired.sort(), ['b', 'd']);
    assert.ok(checks.every((c) => c.slot === -1));
  });

  it('a stream entering again waits once, until its new time', async () => {
    const fired: string[] = [];
    const c = check('x', fired);
    silenceClock.enter(c, 5);
    silenceClock.enter(c, 20);
    await sleep(60);
    assert.deepEqual(fired, ['x']);
    silenceClock.enter(c, 5);
    silenceClock.leave(c);
    await sleep(30);
    assert.deepEqual(fired, ['x']);
  });
});
