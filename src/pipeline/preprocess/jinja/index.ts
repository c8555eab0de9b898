// Chat templates rendered by closures compiled once per template, with `@huggingface/jinja` as the
// reference: it parses (so syntax and whitespace rules are its own), renders templates the
// compiler does not cover, and renders again whenever the fast path gives up on a request, so
// every answer and every error message is the reference's.

import { Template } from '@huggingface/jinja';
import { type AstNode, compileProgram, type CompiledTemplate } from './compile.js';

/** After this many requests the fast path gave up on and the reference rendered, stop trying it. */
const MAX_FAST_MISSES = 16;

export class TemplateProgram {
  private readonly reference: Template;
  private fast: CompiledTemplate | null;
  private misses = 0;

  /** Throws the reference's error for a template that does not parse. */
  constructor(source: string) {
    this.reference = new Template(source);
    this.fast = compileProgram(this.reference.parsed as unknown as AstNode);
  }

  render(context: Record<string, unknown>): string {
    const fast = this.fast;
    if (fast) {
      try {
        return fast(context);
      } catch {
        // Not reproduced here, or an error: the reference decides, with its own message.
      }
    }
    const text = this.reference.render(context);
    if (fast && ++this.misses >= MAX_FAST_MISSES) this.fast = null;
    return text;
  }

  /** The reference alone, for checking the compiled path against it. */
  renderReference(context: Record<string, unknown>): string {
    return this.reference.render(context);
  }
}
