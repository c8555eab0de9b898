import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { PushRouter, createRouterPolicy } from '../../../src/router/index.js';
import { completionsModel, SplitEngine, startHarness } from './harness.js';

test('every worker busy: ModelInfer answers UNAVAILABLE with a message that says why', async () => {
  const base = completionsModel('busy_model', new SplitEngine());
  const router = new PushRouter('busy_model', createRouterPolicy('round-robin'), {
    busyThresholds: { activeDecodeBlocksThreshold: 0.5, activePrefillTokensThreshold: null, activePrefillTokensThresholdFrac: null },
  });
  // The only worker reports 90 of 100 KV blocks in use: over the 0.5 threshold.
  router.setInstances([{ id: 7n, client: new SplitEngine(), capacity: () => ({ kvUsedBlocks: 90, kvTotalBlocks: 100 }) }]);
  const h = await startHarness({ completions: [{ ...base, router }] });
  try {
    await assert.rejects(
      h.call('ModelInfer', {
        model_name: 'busy_model',
        inputs: [{ name: 'text_input', datatype: 'BYTES', shape: [1], contents: { bytes_contents: [Buffer.from('hi')] } }],
      }),
      (err: grpc.ServiceError) =>
        err.code === grpc.status.UNAVAILABLE &&
        /Service temporarily overloaded: all 1 workers of model busy_model are busy \(KV block usage 0\.900 > active_decode_blocks_threshold 0\.5\)/.test(err.details),
    );
  } finally {
    await h.close();
  }
});
