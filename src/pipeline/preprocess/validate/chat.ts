// A raw JSON body → a checked ChatCompletionRequest, in upstream's order (reference/http.md §4.1):
// types (deserialization), the size limits, deprecated fields (501), nvext, required fields,
// stream_options, then the rules of §5 in the order upstream runs them. Each step is its field's
// module; this list is only the order.

import type { ChatCompletionRequest } from '../../../protocols/index.js';
import { chatPromptChars, checkMessageCount, checkPromptChars, checkToolCount } from '../request-limits.js';
import { CHAT_FIELDS } from './fields.js';
import { checkMessageRules, checkMessageShapes, checkMessagesNotEmpty, checkRejectedMedia } from './messages.js';
import { checkCompletionTokenIdsChoice, honouredNvext, parseNvext } from './nvext.js';
import { limitsOf, outputTokenLimit, type ValidationOptions } from './options.js';
import { normalizeReasoningArgs } from '../reasoning-args.js';
import { checkResponseFormatRules, checkResponseFormatShape } from './response-format.js';
import { checkRlFields, hasTokenPrompt, withLegacyTokens } from './rl-fields.js';
import * as root from './root.js';
import * as sampling from './sampling.js';
import { checkGenerationPromptFlags, checkTemplateArgs, mergedTemplateArgs } from './template-args.js';
import { checkDeprecatedFunctions, checkToolChoiceRules, checkToolChoiceShape, checkToolRules, checkToolShapes } from './tools.js';

export function validateChatRequest(raw: unknown, opts: ValidationOptions = {}): ChatCompletionRequest {
  const body = root.asBody(raw);
  root.requireField(body, 'model');
  // A token-in prompt stands instead of the messages.
  const tokenPrompt = hasTokenPrompt(body);
  if (!tokenPrompt) root.requireField(body, 'messages');
  else body.messages ??= [];
  root.checkTypes(body, CHAT_FIELDS);
  const limits = limitsOf(opts);
  checkMessageCount(body.messages, limits);
  checkToolCount(body.tools, limits);
  checkMessageShapes(body.messages);
  const messages = body.messages as root.Body[];
  checkPromptChars(chatPromptChars(messages), limits);
  checkToolShapes(body.tools);
  checkToolChoiceShape(body.tool_choice);
  checkResponseFormatShape(body.response_format);
  checkDeprecatedFunctions(body);
  const nvext = parseNvext(body.nvext);
  if (!tokenPrompt) checkMessagesNotEmpty(messages);
  root.checkStreamOptions(body);
  if (opts.rejectMediaInputs?.length) checkRejectedMedia(body, messages, opts.rejectMediaInputs);

  const tools = body.tools as root.Body[] | null | undefined;
  root.checkUnsupportedFields(body, CHAT_FIELDS, opts.ignoreUnsupportedFields === true);
  root.checkGuidedDecoding(body);
  const templateArgs = mergedTemplateArgs(body);
  checkTemplateArgs(templateArgs);
  checkMessageRules(messages, tools);
  root.checkModel(body.model);
  sampling.checkFrequencyPenalty(body.frequency_penalty);
  sampling.checkLogitBias(body.logit_bias);
  sampling.checkTopLogprobs(body.top_logprobs);
  const limit = outputTokenLimit(opts);
  sampling.checkMaxTokens(body.max_tokens, 'Max tokens', limit);
  sampling.checkMaxTokens(body.max_completion_tokens, 'Max completion tokens', limit);
  sampling.checkN(body.n);
  checkCompletionTokenIdsChoice((body.n as number | null | undefined) ?? 1, nvext);
  checkRlFields(body);
  sampling.checkPresencePenalty(body.presence_penalty);
  checkResponseFormatRules(body.response_format);
  sampling.checkStop(body.stop);
  sampling.checkTemperature(body.temperature);
  sampling.checkTopP(body.top_p);
  checkToolRules(tools);
  checkToolChoiceRules(body.tool_choice, tools);
  root.checkUser(body.user);
  root.checkModeration(body.moderation);
  sampling.checkCommonExtRanges(body);
  sampling.checkNWithTemperature(body.n, body.temperature);
  checkGenerationPromptFlags(body);

  const request = root.knownFieldsOnly(body, CHAT_FIELDS) as unknown as ChatCompletionRequest & { chat_template_kwargs?: unknown };
  delete request.chat_template_kwargs;
  request.chat_template_args = normalizeReasoningArgs(body.thinking, body.reasoning_effort, templateArgs);
  delete request.thinking;
  // The legacy `tokens` prompt is the body's, honoured whether nvext is or not.
  request.nvext = withLegacyTokens(honouredNvext(nvext, opts.nvextEnabled !== false), body);
  delete request.tokens;
  return request;
}
