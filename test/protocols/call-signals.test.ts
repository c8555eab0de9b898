// Calls' signals: a controller is handed on only once its call ended clean, and a follower hears an
// abort as a listener added after the signal's listeners would.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { callController, callEnded, followAbort, unfollowAbort, type AbortFollower } from '../../src/protocols/index.js';

function recorder(seen: string[], name: string): AbortFollower {
  return { handleEvent: () => seen.push(name) };
}

test('a call that ended clean hands its controller on; an aborted, listened-to or followed one keeps it', () => {
  const clean = callController();
  callEnded(clean);
  assert.equal(callController(), clean);

  const aborted = callController();
  aborted.abort();
  callEnded(aborted);
  assert.notEqual(callController(), aborted);

  const listened = callController();
  listened.signal.addEventListener('abort', () => undefined);
  callEnded(listened);
  assert.notEqual(callController(), listened);

  const followed = callController();
  followAbort(followed.signal, recorder([], 'f'));
  callEnded(followed);
  assert.notEqual(callController(), followed);
});

test("a call signal's followers hear its abort once, after its listeners, in the order they came; one gone meanwhile is skipped", () => {
  const seen: string[] = [];
  const controller = callController();
  const first = recorder(seen, 'first');
  const gone = recorder(seen, 'gone');
  followAbort(controller.signal, first);
  followAbort(controller.signal, { handleEvent: () => (seen.push('second'), unfollowAbort(controller.signal, gone)) });
  followAbort(controller.signal, gone);
  controller.signal.addEventListener('abort', () => seen.push(`listener ${String(controller.signal.reason)}`));
  const left = recorder(seen, 'left');
  followAbort(controller.signal, left);
  unfollowAbort(controller.signal, left);
  controller.abort('why');
  controller.abort('again');
  assert.deepEqual(seen, ['listener why', 'first', 'second']);
});

test('a signal made elsewhere is followed through an event listener', () => {
  const seen: string[] = [];
  const controller = new AbortController();
  const follower = recorder(seen, 'heard');
  followAbort(controller.signal, follower);
  unfollowAbort(controller.signal, follower);
  followAbort(controller.signal, recorder(seen, 'kept'));
  controller.abort();
  assert.deepEqual(seen, ['kept']);
});
