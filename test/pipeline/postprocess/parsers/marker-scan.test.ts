// The marker search shared by the reasoning parsers (upstream's `overlap` helper cases included).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { firstMarker, partialMarkerLength } from '../../../../src/pipeline/postprocess/parsers/marker-scan.js';

test('partialMarkerLength: the longest tail that could still grow into a marker', () => {
  assert.equal(partialMarkerLength('abc</th', ['</think>']), 4);
  assert.equal(partialMarkerLength('abc</thing>def', ['</think>']), 0);
  assert.equal(partialMarkerLength('<', ['<think>']), 1);
  assert.equal(partialMarkerLength('<th', ['<think>']), 3);
  assert.equal(partialMarkerLength('<think>', ['<think>']), 0, 'a complete marker is found, not held');
  assert.equal(partialMarkerLength('no match', ['<think>']), 0);
  assert.equal(partialMarkerLength('', ['<think>']), 0);
  assert.equal(partialMarkerLength('Hello world <thi', ['<think>']), 4);
  assert.equal(partialMarkerLength('text◁', ['◁think▷']), 1);
  assert.equal(partialMarkerLength('text◁/thi', ['◁/think▷']), 5);
  assert.equal(partialMarkerLength('x</th', ['<think>', '</think>']), 4, 'the widest of several markers');
});

test('firstMarker: the earliest complete marker, the longest at a tie', () => {
  assert.deepEqual(firstMarker('a</think>b<think>', ['<think>', '</think>']), { marker: '</think>', index: 1 });
  assert.deepEqual(firstMarker('x<|end|>', ['<|e', '<|end|>']), { marker: '<|end|>', index: 1 });
  assert.equal(firstMarker('nothing here', ['<think>']), null);
});
