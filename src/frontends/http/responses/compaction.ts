// POST /v1/responses/compact with an open model. OpenAI's compaction returns the conversation's user
// messages and one opaque `compaction` item that stands for everything else. Here the model itself
// writes that item: it is asked, after the conversation, for a summary it could continue the work
// from, and the summary travels in the item's `encrypted_content` — encoded, not encrypted, in a
// form only this gateway reads back (`dyn1.` + base64url JSON). Sent back as an input item, it
// becomes a system message holding the summary (input-items.ts). docs/api-fields.md says the same.

import type { FastifyReply } from 'fastify';
import type { ResponseFold, ChoiceDelta } from '../../../pipeline/index.js';
import type { HeaderRouting } from '../../../pipeline/index.js';
import type { ServedModel } from '../../../models/index.js';
import { ValidationError } from '../../../protocols/index.js';
import type { HttpRoute } from '../http-route.js';
import {
  answerSingleChoice,
  generatingRoute,
  prepareTranslatedChat,
  type AnswerEvents,
  type Generation,
  type GenerationRoute,
  type GenerationRouteOptions,
  type TranslatedChat,
} from '../model-route/index.js';
import { INFERENCE_ERRORS, json, type RouteDoc } from '../openapi/index.js';
import { responsesModelName, translateResponsesRequest } from './request.js';
import { RESPONSES_API } from './responses-api.js';
import { encodeCompaction } from './compaction-item.js';
import { newItemId, responseUsage } from './response-object.js';

type Json = Record<string, unknown>;

/** What the model is asked after the conversation, to write the summary the compaction item carries. */
const SUMMARY_REQUEST =
  'Write a summary of the conversation so far from which you could continue the work without it: ' +
  "the user's goals and requests, decisions made, what was done (tool calls and the results that " +
  'matter), files and names involved, open questions and the next steps. Write only the summary.';

interface Prepared extends TranslatedChat {
  /** The conversation's user messages, as the compacted output lists them. */
  userMessages: Json[];
}

/** The input's user messages as output message items. */
function userMessageItems(chat: Json): Json[] {
  const messages = (chat.messages as { role: string; content: unknown }[]).filter((m) => m.role === 'user');
  return messages.map((m) => ({
    id: newItemId('msg'),
    type: 'message',
    status: 'completed',
    role: 'user',
    content: typeof m.content === 'string' ? [{ type: 'input_text', text: m.content }] : (m.content as { type: string; text?: string }[]).filter((p) => p.type === 'text').map((p) => ({ type: 'input_text', text: p.text })),
  }));
}

class CompactionAnswer implements AnswerEvents {
  private final: Json | undefined;

  constructor(
    private readonly fold: ResponseFold,
    private readonly userMessages: Json[],
  ) {}

  start(): void {}

  delta(_delta: ChoiceDelta): void {}

  finish(): void {
    const summary = (this.fold.choices()[0]?.text ?? '').trim();
    const usage = this.fold.usage();
    this.final = {
      id: newItemId('cmp'),
      object: 'response.compaction',
      created_at: Math.floor(Date.now() / 1000),
      output: [...this.userMessages, { id: newItemId('cmp'), type: 'compaction', encrypted_content: encodeCompaction(summary) }],
      usage: usage ? responseUsage(usage) : null,
    };
  }

  result(): Json | undefined {
    return this.final;
  }

  fail(): void {}
}

class CompactRoute implements GenerationRoute<Prepared> {
  readonly endpoint = 'responses_compact';
  readonly api = RESPONSES_API;

  constructor(private readonly opts: GenerationRouteOptions) {}

  modelName(body: unknown): string {
    return responsesModelName(body);
  }

  async prepare(body: unknown, served: ServedModel, routing: HeaderRouting): Promise<Prepared> {
    const rest = { ...(body as Json) };
    if (rest.previous_response_id !== undefined && rest.previous_response_id !== null) {
      throw new ValidationError('`previous_response_id` is not supported on /v1/responses/compact yet: send the conversation to compact as `input`');
    }
    // The compacted answer is one object, never a stream; tools are not offered for a summary.
    delete rest.stream;
    delete rest.tools;
    delete rest.tool_choice;
    const { chat } = translateResponsesRequest(rest);
    const userMessages = userMessageItems(chat);
    const asked = { ...chat, messages: [...(chat.messages as Json[]), { role: 'user', content: SUMMARY_REQUEST }] };
    return { ...(await prepareTranslatedChat(served, asked, false, routing)), userMessages };
  }

  async respond(generation: Generation<Prepared>, reply: FastifyReply): Promise<unknown> {
    return answerSingleChoice(generation, reply, this.opts.sseKeepAliveMs, (_out, fold) => new CompactionAnswer(fold, generation.prepared.userMessages));
  }
}

const COMPACT_DOC: RouteDoc = {
  summary: 'Compact a conversation',
  tag: 'OpenAI',
  description: "The conversation's user messages and one compaction item: a summary the model wrote to continue from (encoded, not encrypted; read back only by this gateway).",
  body: { type: 'object', required: ['model', 'input'], additionalProperties: true, example: { model: 'Qwen/Qwen3-0.6B', input: 'Hello!' } },
  responses: {
    200: json('The compacted response', { type: 'object', properties: { object: { type: 'string', enum: ['response.compaction'] }, output: { type: 'array' } } }),
    ...INFERENCE_ERRORS,
  },
};

/** Mounted below the Responses route's own path, at `compact`. */
export const COMPACT_ROUTE: HttpRoute = generatingRoute(COMPACT_DOC, ({ generation }) => new CompactRoute(generation));
