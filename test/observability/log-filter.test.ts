import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLogger, logFormatFor, moduleLogger, parseLogFilter } from '../../src/observability/index.js';

test('DYN_LOG: a default level plus module=level pairs, upstream prefix accepted', () => {
  const f = parseLogFilter('info,dynamo_ts::router=debug,http=trace,grpc=WARNING');
  assert.equal(f.level, 'info');
  assert.deepEqual([...f.modules], [['router', 'debug'], ['http', 'trace'], ['grpc', 'warn']]);
  assert.deepEqual(f.ignored, []);
  assert.equal(parseLogFilter('router=debug').level, 'info', 'no bare level: info');
  assert.equal(parseLogFilter(undefined).level, 'info');
  assert.equal(parseLogFilter('off').level, 'silent');
});

test('DYN_LOG: unknown modules and levels are reported, not applied', () => {
  const f = parseLogFilter('debug,tower=error,router=loud,verbose');
  assert.equal(f.level, 'debug');
  assert.equal(f.modules.size, 0);
  assert.deepEqual(f.ignored, ['tower=error', 'router=loud', 'verbose']);
});

test('module loggers take their own level, others the default', () => {
  const root = createLogger('warn,router=debug,mocker=error', { format: 'json' });
  assert.equal(moduleLogger(root, 'router').level, 'debug');
  assert.equal(moduleLogger(root, 'mocker').level, 'error');
  assert.equal(moduleLogger(root, 'http').level, 'warn');
  assert.ok(moduleLogger(root, 'router').isLevelEnabled('debug'));
  assert.ok(!root.isLevelEnabled('info'));
  // A child of a module logger keeps the filter (pino children inherit through the prototype).
  assert.equal(moduleLogger(root.child({ scope: 'x' }), 'router').level, 'debug');
});

test('format: JSONL forces either way; unset follows whether stdout is a terminal', () => {
  assert.equal(logFormatFor(undefined, true), 'pretty');
  assert.equal(logFormatFor(undefined, false), 'json');
  assert.equal(logFormatFor(true, true), 'json');
  assert.equal(logFormatFor(false, false), 'pretty');
});
