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
import { normalizeReasoningArgs } from './reasoning-args.js';
import { checkResponseFormatRules, checkResponseFormatShape } from './response-format.js';
import {
  asBody,
  checkGuidedDecoding,
  checkModel,
  checkStreamOptions,
  checkTypes,
  checkUnsupportedFields,
  checkUser,
  knownFieldsOnly,
  requireField,
  type Body,
} from './root.js';
import {
  checkCommonExtRanges,
  checkFrequencyPenalty,
  checkLogitBias,
  checkMaxTokens,
  checkN,
  checkNWithTemperature,
  checkPresencePenalty,
  checkStop,
  checkTemperature,
  checkTopLogprobs,
  checkTopP,
} from './sampling.js';
import { checkGenerationPromptFlags, checkTemplateArgs, mergedTemplateArgs } from './template-args.js';
import { checkDeprecatedFunctions, checkToolChoiceRules, checkToolChoiceShape, checkToolRules, checkToolShapes } from './tools.js';

export function validateChatRequest(raw: unknown, opts: ValidationOptions = {}): ChatCompletionRequest {
  const body = asBody(raw);
  requireField(body, 'model');
  requireField(body, 'messages');
  checkTypes(body, CHAT_FIELDS);
  const limits = limitsOf(opts);
  checkMessageCount(body.messages, limits);
  checkToolCount(body.tools, limits);
  checkMessageShapes(body.messages);
  const messages = body.messages as Body[];
  checkPromptChars(chatPromptChars(messages), limits);
  checkToolShapes(body.tools);
  checkToolChoiceShape(body.tool_choice);
  checkResponseFormatShape(body.response_format);
  checkDeprecatedFunctions(body);
  const nvext = parseNvext(body.nvext);
  checkMessagesNotEmpty(messages);
  checkStreamOptions(body);
  if (opts.rejectMediaInputs?.length) checkRejectedMedia(body, messages, opts.rejectMediaInputs);

  const tools = body.tools as Body[] | null | undefined;
  checkUnsupportedFields(body, CHAT_FIELDS, opts.ignoreUnsupportedFields === true);
  checkGuidedDecoding(body);
  const templateArgs = mergedTemplateArgs(body);
  checkTemplateArgs(templateArgs);
  checkMessageRules(messages, tools);
  checkModel(body.model);
  checkFrequencyPenalty(body.frequency_penalty);
  checkLogitBias(body.logit_bias);
  checkTopLogprobs(body.top_logprobs);
  const limit = outputTokenLimit(opts);
  checkMaxTokens(body.max_tokens, 'Max tokens', limit);
  checkMaxTokens(body.max_completion_tokens, 'Max completion tokens', limit);
  checkN(body.n);
  checkCompletionTokenIdsChoice((body.n as number | null | undefined) ?? 1, nvext);
  checkPresencePenalty(body.presence_penalty);
  checkResponseFormatRules(body.response_format);
  checkStop(body.stop);
  checkTemperature(body.temperature);
  checkTopP(body.top_p);
  checkToolRules(tools);
  checkToolChoiceRules(body.tool_choice, tools);
  checkUser(body.user);
  checkCommonExtRanges(body);
  checkNWithTemperature(body.n, body.temperature);
  checkGenerationPromptFlags(body);

  const request = knownFieldsOnly(body, CHAT_FIELDS) as unknown as ChatCompletionRequest & { chat_template_kwargs?: unknown };
  delete request.chat_template_kwargs;
  request.chat_template_args = normalizeReasoningArgs(body.thinking, body.reasoning_effort, templateArgs);
  delete request.thinking;
  request.nvext = honouredNvext(nvext, opts.nvextEnabled !== false);
  return request;
}
