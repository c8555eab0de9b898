// Loss and return of a plane's connections: logged once each (warn, then info with the time down),
// the plane down while any of its connections is, its changes told to subscribers.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PlaneStatus, type PlaneChange } from '../../src/runtime/index.js';

function recorder() {
  const lines: [string, string][] = [];
  return { lines, logger: { warn: (_o: object, msg: string) => void lines.push(['warn', msg]), info: (_o: object, msg: string) => void lines.push(['info', msg]) } };
}

test('a connection lost and back: one warn saying what is degraded, one info saying for how long', () => {
  const { lines, logger } = recorder();
  const status = new PlaneStatus(logger);
  const changes: PlaneChange[] = [];
  status.subscribe((c) => changes.push(c));
  const etcd = status.connection('discovery', 'etcd at http://127.0.0.1:2379');
  etcd.restored();
  etcd.lost('watch stream broke');
  etcd.lost('lease keep-alive failed');
  assert.equal(status.isUp('discovery'), false);
  assert.deepEqual(status.outages().map((o) => [o.plane, o.what]), [['discovery', 'etcd at http://127.0.0.1:2379']]);
  etcd.restored();
  etcd.restored();
  assert.equal(status.isUp('discovery'), true);
  assert.equal(lines.length, 2);
  assert.equal(lines[0]![0], 'warn');
  assert.match(lines[0]![1], /^etcd at http:\/\/127\.0\.0\.1:2379 lost \(watch stream broke\): workers that start or stop go unseen/);
  assert.equal(lines[1]![0], 'info');
  assert.match(lines[1]![1], /^etcd at http:\/\/127\.0\.0\.1:2379 back after [\d.]+ s down$/);
  assert.deepEqual(changes, [
    { plane: 'discovery', up: false },
    { plane: 'discovery', up: true },
  ]);
});

test('a plane is down while any of its connections is; a publisher that left ends its outage', () => {
  const { lines, logger } = recorder();
  const status = new PlaneStatus(logger);
  const changes: PlaneChange[] = [];
  status.subscribe((c) => changes.push(c));
  const a = status.connection('events', 'ZMQ event publisher tcp://127.0.0.1:1');
  const b = status.connection('events', 'ZMQ event publisher tcp://127.0.0.1:2');
  a.lost('connection closed');
  b.lost('connection closed');
  a.restored();
  assert.equal(status.isUp('events'), false);
  b.gone();
  assert.equal(status.isUp('events'), true);
  assert.deepEqual(status.planes(), [
    { plane: 'discovery', up: true },
    { plane: 'events', up: true },
    { plane: 'requests', up: true },
  ]);
  assert.deepEqual(changes, [
    { plane: 'events', up: false },
    { plane: 'events', up: true },
  ]);
  assert.match(lines.at(-1)![1], /tcp:\/\/127\.0\.0\.1:2 left discovery after [\d.]+ s unreachable/);
});
