import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  JsonCallListReader,
  JsonCallReader,
  type CallBodyReader,
  type CallEvent,
} from '../../../../../../src/pipeline/postprocess/parsers/tool/json/json-stream.js';
import { JsonValueScanner } from '../../../../../../src/pipeline/postprocess/parsers/tool/json/json-value-scanner.js';
import { cuttings } from '../../support.js';

interface Read {
  names: string[];
  args: string[];
  state: string;
  taken: number;
  leftover: string;
}

/** Feeds `pieces` until the reader stops, then finishes it, and sums up the events. */
function read(reader: CallBodyReader, pieces: readonly string[]): Read {
  const events: CallEvent[] = [];
  let taken = 0;
  for (const piece of pieces) {
    if (reader.state !== 'reading') break;
    taken += reader.feed(piece, events);
  }
  reader.finish(events);
  const names: string[] = [];
  const args: string[] = [];
  let open = false;
  for (const event of events) {
    if (event.type === 'name') {
      assert.equal(open, false, 'a call starts while another is open');
      names.push(event.name);
      args.push('');
      open = true;
    } else if (event.type === 'arguments') {
      assert.ok(open, 'arguments outside a call');
      args[args.length - 1] += event.fragment;
    } else {
      assert.ok(open, 'end outside a call');
      open = false;
    }
  }
  assert.equal(open, false, 'a call was left open');
  return { names, args, state: reader.state, taken, leftover: reader.leftover() };
}

function everyCutting(make: () => CallBodyReader, text: string, expected: Read): void {
  for (const { name, pieces } of cuttings(text)) {
    assert.deepEqual(read(make(), pieces), expected, `${name}: ${JSON.stringify(pieces)}`);
  }
}

describe('JsonValueScanner', () => {
  function scan(text: string): string {
    const scanner = new JsonValueScanner();
    for (const ch of text) {
      const step = scanner.step(ch);
      if (step !== 'more') return step;
    }
    return scanner.isComplete ? 'complete' : 'incomplete';
  }

  it('accepts every kind of value and knows where it ends', () => {
    for (const text of ['{"a": [1, -2.5e+3, true, false, null, "x\\u00e9\\n"], "b": {}}', '[]', '"s"', 'true']) {
      assert.equal(scan(text), 'done', text);
    }
    assert.equal(scan('12'), 'complete');
    assert.equal(scan('12,'), 'ended');
    assert.equal(scan('{"a": 1'), 'incomplete');
  });

  it('rejects what is not JSON at the first wrong character', () => {
    for (const text of ['{a: 1}', '{"a" 1}', '[1,]', '{"a": tru}', '01', '"\\x"', '{"a": 1]', 'nope']) {
      assert.equal(scan(text), 'error', text);
    }
  });
});

describe('JsonCallReader', () => {
  it('streams the arguments exactly as written, however the text is cut', () => {
    const text = '{"name": "get_weather", "arguments": {"city": "Paris", "days": [1, 2], "unit": null}}';
    everyCutting(() => new JsonCallReader(), text, {
      names: ['get_weather'],
      args: ['{"city": "Paris", "days": [1, 2], "unit": null}'],
      state: 'complete',
      taken: text.length,
      leftover: '',
    });
  });

  it('reports the name as soon as it is complete, before the arguments', () => {
    const events: CallEvent[] = [];
    const reader = new JsonCallReader();
    reader.feed('{"name": "f", "arguments": {"a"', events);
    assert.deepEqual(events, [
      { type: 'name', name: 'f' },
      { type: 'arguments', fragment: '{"a"' },
    ]);
  });

  it('holds arguments written before the name, and accepts "parameters"', () => {
    const text = '{"parameters": {"q": 1}, "type": "function", "name": "search"}';
    everyCutting(() => new JsonCallReader(), text, {
      names: ['search'],
      args: ['{"q": 1}'],
      state: 'complete',
      taken: text.length,
      leftover: '',
    });
  });

  it('gives double-encoded arguments as the string content', () => {
    const text = '{"name": "f", "arguments": "{\\"a\\": \\"\\u00e9\\\\n\\"}"}';
    everyCutting(() => new JsonCallReader(), text, {
      names: ['f'],
      args: ['{"a": "é\\n"}'],
      state: 'complete',
      taken: text.length,
      leftover: '',
    });
  });

  it('gives {} to a call without arguments and stops after the object', () => {
    assert.deepEqual(read(new JsonCallReader(), ['{"name": "now"} and more']), {
      names: ['now'],
      args: ['{}'],
      state: 'complete',
      taken: 15,
      leftover: '',
    });
  });

  it('is not a call when the text is not JSON or has no string name', () => {
    assert.deepEqual(read(new JsonCallReader(), ['{"nam": x']), {
      names: [],
      args: [],
      state: 'not_call',
      taken: 8,
      leftover: '{"nam": ',
    });
    assert.equal(read(new JsonCallReader(), ['{"a": 1} rest']).leftover, '{"a": 1}');
    assert.equal(read(new JsonCallReader(), ['{"name": 3, "arguments": {}}']).state, 'not_call');
    assert.equal(read(new JsonCallReader(), ['hello']).state, 'not_call');
  });

  it('closes a started call with what was generated when the text goes wrong', () => {
    assert.deepEqual(read(new JsonCallReader(), ['{"name": "f", "arguments": {"a": 1</tool_call>']), {
      names: ['f'],
      args: ['{"a": 1'],
      state: 'broken',
      taken: 34,
      leftover: '',
    });
    assert.deepEqual(read(new JsonCallReader(), ['{"name": "f", "argu']).args, ['{}']);
  });
});

describe('JsonCallListReader', () => {
  it('reads an array of calls however the text is cut', () => {
    const text = '[{"name": "a", "arguments": {"x": 1}}, {"arguments": {}, "name": "b"}]';
    everyCutting(() => new JsonCallListReader(), text, {
      names: ['a', 'b'],
      args: ['{"x": 1}', '{}'],
      state: 'complete',
      taken: text.length,
      leftover: '',
    });
  });

  it('reads a bare object when allowed', () => {
    const text = ' {"name": "a", "parameters": {"x": 1}}';
    everyCutting(() => new JsonCallListReader(true), text, {
      names: ['a'],
      args: ['{"x": 1}'],
      state: 'complete',
      taken: text.length,
      leftover: '',
    });
    assert.equal(read(new JsonCallListReader(), [text]).state, 'not_call');
  });

  it('releases what follows the last good call when the list goes wrong', () => {
    assert.deepEqual(read(new JsonCallListReader(), ['[{"name": "a"}, {"x": 1}] tail']), {
      names: ['a'],
      args: ['{}'],
      state: 'broken',
      taken: 24,
      leftover: ', {"x": 1}',
    });
    assert.deepEqual(read(new JsonCallListReader(), ['[1]']).leftover, '[');
  });
});
