import assert from 'node:assert/strict';
import test from 'node:test';
import { PlacedList } from '../../src/protocols/streams/placed-list.js';

test('a placed list holds each member once; whichever leaves, the others stay and know their places', () => {
  const members = Array.from({ length: 6 }, (_, i) => ({ name: `m${i}`, slot: -1 }));
  const list = new PlacedList<(typeof members)[number]>((m) => m);
  for (const m of members) list.add(m);
  list.add(members[2]!);
  assert.equal(list.length, 6);
  assert.equal(list.remove(members[0]!), true);
  assert.equal(list.remove(members[0]!), false);
  assert.equal(list.remove(members[5]!), true);
  list.removeAt(members[3]!.slot);
  assert.deepEqual(list.items.map((m) => m.name).sort(), ['m1', 'm2', 'm4']);
  list.items.forEach((m, i) => assert.equal(m.slot, i));
  assert.deepEqual([members[0], members[3], members[5]].map((m) => m!.slot), [-1, -1, -1]);
  list.add(members[0]!);
  assert.equal(list.items[members[0]!.slot], members[0]);
});

test('the place may be kept apart from the member', () => {
  const member = { place: { slot: -1 } };
  const list = new PlacedList<typeof member>((m) => m.place);
  list.add(member);
  assert.equal(member.place.slot, 0);
  list.remove(member);
  assert.equal(member.place.slot, -1);
  assert.equal(list.length, 0);
});
