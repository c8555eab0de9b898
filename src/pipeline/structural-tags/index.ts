// Structural tags: the grammar of a model's own tool-call format, sent to the engine as guided
// decoding so a tool call comes out well formed (upstream's `--dyn-structural-tag`).
export { toolCallTag, type TagContext, type ToolCallFormat, type ToolCallTag } from './select.js';
export type { StructuralTag } from './formats.js';
