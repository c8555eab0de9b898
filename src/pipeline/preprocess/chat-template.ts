// Renders a model's Hugging Face chat template into prompt text, with jinja/TemplateProgram:
// compiled once per template into closures, @huggingface/jinja as its parser and reference.
//
// @huggingface/jinja parses with trim_blocks and lstrip_blocks on (as HF transformers and
// upstream's minijinja setup do), strips `{% generation %}` tags, drops one trailing newline, and
// provides raise_exception, strftime_now, tojson, `is mapping` and the Python string/dict methods
// real templates use (.strip(), .split(), .startswith(), .items(), ...). Known gap: `none | length`
// fails there (upstream treats it as 0); such a render error becomes a 400 like any other.

import type { ModelDeploymentCard } from '../../protocols/index.js';
import { ValidationError, type ChatCompletionRequest, type ChatMessage, type ChatTool } from '../../protocols/index.js';
import { TemplateProgram } from './jinja/index.js';
import { templateRenderThread } from './template-renderer.js';

export interface ChatTemplateOptions {
  /** `--exclude-tools-when-tool-choice-none` (default on): hide tools from the template when tool_choice is "none". */
  excludeToolsWhenToolChoiceNone?: boolean;
}

/** Requests with at most this many messages and tools render inline (microseconds each, compiled). */
const INLINE_MAX_ITEMS = 32;

/** One model's chat templates, compiled once and reused for every request. */
export class ChatTemplate {
  private readonly compiled = new Map<string, TemplateProgram>();
  private readonly excludeToolsWhenNone: boolean;

  constructor(
    private readonly card: ModelDeploymentCard,
    opts: ChatTemplateOptions = {},
  ) {
    this.excludeToolsWhenNone = opts.excludeToolsWhenToolChoiceNone ?? true;
  }

  render(request: ChatCompletionRequest): string {
    const render = this.renderInput(request);
    let text: string;
    try {
      text = render.template.render(render.context);
    } catch (err) {
      throw templateError(err);
    }
    return render.finish(text);
  }

  /**
   * The same text as `render`; a long conversation is rendered on the template thread so the
   * event loop stays free for other clients.
   */
  async renderOffLoop(request: ChatCompletionRequest): Promise<string> {
    if (this.rendersInline(request)) return this.render(request);
    const render = this.renderInput(request);
    let text: string;
    try {
      text = await templateRenderThread.run({ source: render.source, context: render.context });
    } catch (err) {
      throw templateError(err);
    }
    return render.finish(text);
  }

  /** Whether `renderOffLoop` renders this request on the calling thread (then `render` is the same, without a promise). */
  rendersInline(request: ChatCompletionRequest): boolean {
    return request.messages.length + (request.tools?.length ?? 0) <= INLINE_MAX_ITEMS;
  }

  private renderInput(request: ChatCompletionRequest): RenderInput {
    const tools = this.templateTools(request);
    const name = this.templateNameFor(tools !== null);
    const continueFinal = request.continue_final_message === true;
    const messages = request.messages.map(templateMessage);
    const context: Record<string, unknown> = {
      messages,
      tools,
      tool_choice: request.tool_choice ?? null,
      bos_token: this.card.bosToken ?? '',
      eos_token: this.card.eosToken ?? '',
      unk_token: this.card.unkToken ?? '',
      add_generation_prompt: !continueFinal && request.add_generation_prompt !== false,
      ...request.chat_template_args,
    };
    return {
      template: this.compiledTemplate(name),
      source: this.card.chatTemplates[name]!,
      context,
      finish: (text) => (continueFinal ? cutAfterFinalMessage(text, messages[messages.length - 1]) : text),
    };
  }

  private templateTools(request: ChatCompletionRequest): Record<string, unknown>[] | null {
    const tools = request.tools;
    if (!tools || tools.length === 0) return null;
    if (this.excludeToolsWhenNone && request.tool_choice === 'none') return null;
    return tools.map(templateTool);
  }

  /** `tool_use` when the request has tools and the model names one, else `default`. */
  private templateNameFor(hasTools: boolean): string {
    return hasTools && this.card.chatTemplates.tool_use !== undefined ? 'tool_use' : 'default';
  }

  private compiledTemplate(name: string): TemplateProgram {
    let template = this.compiled.get(name);
    if (template) return template;
    const source = this.card.chatTemplates[name];
    if (source === undefined) {
      throw new ValidationError(`Model ${this.card.displayName} has no chat template; use /v1/completions`);
    }
    try {
      template = new TemplateProgram(source);
    } catch (err) {
      throw templateError(err);
    }
    this.compiled.set(name, template);
    return template;
  }
}

/** Everything one render needs, for either place it runs. */
interface RenderInput {
  /** Compiled here: a template that does not compile fails before any hop. */
  template: TemplateProgram;
  source: string;
  context: Record<string, unknown>;
  finish(text: string): string;
}

function templateError(err: unknown): ValidationError {
  return new ValidationError(`Chat template error: ${(err as Error).message}`);
}

/**
 * The message as templates expect it: text-only content arrays flattened (parts joined with
 * "\n"), null content as "" (templates call string methods on it), and tool-call arguments as a
 * mapping when they are a JSON object, as HF transformers passes them.
 */
function templateMessage(message: ChatMessage): Record<string, unknown> {
  const out: Record<string, unknown> = { ...message, content: templateContent(message.content) };
  if (message.tool_calls) {
    out.tool_calls = message.tool_calls.map((call) => ({
      ...call,
      function: { ...call.function, arguments: parsedArguments(call.function.arguments) },
    }));
  }
  return out;
}

function templateContent(content: ChatMessage['content']): unknown {
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') return content;
  if (!content.every((part) => part.type === 'text')) return content;
  return content.map((part) => (part as { text: string }).text).join('\n');
}

function parsedArguments(args: string): unknown {
  try {
    const parsed: unknown = JSON.parse(args);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed : args;
  } catch {
    return args;
  }
}

/** Tools in OpenAI's field order, parameters always an object schema with `properties`. */
function templateTool(tool: ChatTool): Record<string, unknown> {
  const fn = tool.function;
  const parameters: Record<string, unknown> = { ...(fn.parameters ?? {}) };
  parameters.type ??= 'object';
  parameters.properties ??= {};
  const func: Record<string, unknown> = { name: fn.name };
  if (fn.description !== undefined && fn.description !== null) func.description = fn.description;
  func.parameters = parameters;
  if (fn.strict !== undefined && fn.strict !== null) func.strict = fn.strict;
  return { type: 'function', function: func };
}

/**
 * continue_final_message: the prompt ends right after the final message's text, without its
 * end-of-turn markup, so the model continues that message (HF transformers does the same).
 */
function cutAfterFinalMessage(text: string, final: Record<string, unknown> | undefined): string {
  const content = typeof final?.content === 'string' ? final.content.trim() : '';
  const at = content.length > 0 ? text.lastIndexOf(content) : -1;
  if (at < 0) {
    throw new ValidationError(
      'continue_final_message is set but the final message does not appear in the rendered chat template',
    );
  }
  return text.slice(0, at + content.length);
}
