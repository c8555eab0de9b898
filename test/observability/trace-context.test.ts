import assert from 'node:assert/strict';
import { test } from 'node:test';
import { traceIdOf } from '../../src/observability/index.js';

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
