// Completion choices → KServe ModelInferResponse (reference/kserve.md §5.2): `text_output` and
// `finish_reason` as BYTES with one element per choice, plus the vLLM-backend token counts.

import type { InferOutputTensor, ModelInferResponse } from '../wire-types.js';

export interface ChoiceOutput {
  text: string;
  /** OpenAI finish reason, or null while the choice is still running. */
  finishReason: string | null;
  outputTokens: number;
}

export interface ExtraOutputs {
  /** Set when `return_num_input_tokens` was requested. */
  inputTokens?: number;
  /** Whether `return_num_output_tokens` was requested. */
  outputTokens: boolean;
}

const encoder = new TextEncoder();

function bytesTensor(name: string, items: Uint8Array[]): InferOutputTensor {
  return { name, datatype: 'BYTES', shape: [items.length], contents: { bytes_contents: items } };
}

export function completionResponse(
  model: string,
  id: string,
  choices: readonly ChoiceOutput[],
  extras: ExtraOutputs,
): ModelInferResponse {
  const outputs: InferOutputTensor[] = [
    bytesTensor('text_output', choices.map((c) => encoder.encode(c.text))),
    bytesTensor('finish_reason', choices.map((c) => encoder.encode(c.finishReason ?? ''))),
  ];
  if (extras.inputTokens !== undefined) {
    outputs.push({ name: 'num_input_tokens', datatype: 'UINT32', shape: [1], contents: { uint_contents: [extras.inputTokens] } });
  }
  if (extras.outputTokens) {
    outputs.push({
      name: 'num_output_tokens',
      datatype: 'UINT32',
      shape: [choices.length],
      contents: { uint_contents: choices.map((c) => c.outputTokens) },
    });
  }
  return { model_name: model, model_version: '1', id, parameters: {}, outputs, raw_output_contents: [] };
}
