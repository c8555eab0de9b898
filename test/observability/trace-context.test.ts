import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseTraceparent, traceContextOf, traceIdOf } from '../../src/observability/index.js';

test('traceparent: the trace id of a valid header only', () => {
  assert.equal(traceIdOf('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'), '4bf92f3577b34da6a3ce929d0e0e4736');
  assert.equal(traceIdOf(['00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00', 'x']), '4bf92f3577b34da6a3ce929d0e0e4736');
  assert.equal(traceIdOf(undefined), undefined);
  assert.equal(traceIdOf('00-00000000000000000000000000000000-00f067aa0ba902b7-01'), undefined, 'all-zero trace id');
  assert.equal(traceIdOf('00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01'), undefined, 'all-zero parent id');
  assert.equal(traceIdOf('ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'), undefined, 'version ff');
  assert.equal(traceIdOf('00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01'), undefined, 'upper case');
  assert.equal(traceIdOf('00-4bf92f3577b34da6-00f067aa0ba902b7-01'), undefined, 'short');
});

test('traceContextOf keeps a valid traceparent with its tracestate and drops a malformed one', () => {
  const parent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
  assert.deepEqual(traceContextOf(parent, 'a=1'), { traceparent: parent, tracestate: 'a=1' });
  assert.deepEqual(traceContextOf([parent], ['a=1', 'b=2']), { traceparent: parent, tracestate: 'a=1,b=2' });
  assert.deepEqual(traceContextOf(parent, undefined), { traceparent: parent });
  assert.equal(traceContextOf('00-zz-00f067aa0ba902b7-01', 'a=1'), undefined);
  assert.equal(traceContextOf(undefined, 'a=1'), undefined);
  assert.deepEqual(parseTraceparent(parent), { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', flags: 1 });
});
