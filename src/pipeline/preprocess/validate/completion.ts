// A completion request checked, in upstream's order (reference/http.md §4.1): a raw JSON body
// (HTTP), or a request built by code from another wire shape (KServe's tensors), which skips only
// what its construction already rules out (the JSON object itself, nvext parsing, unknown fields).

import type { CompletionRequest, NvExt } from '../../../protocols/index.js';
import { checkPromptChars, completionPromptChars } from '../request-limits.js';
import { COMPLETION_FIELDS } from './fields.js';
import { checkCompletionTokenIdsChoice, honouredNvext, parseNvext } from './nvext.js';
import { limitsOf, outputTokenLimit, type ValidationOptions } from './options.js';
import { checkPromptRules, checkPromptShape, checkSuffix, promptBatchSize } from './prompt.js';
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
  checkBestOf,
  checkCommonExtRanges,
  checkFrequencyPenalty,
  checkLogitBias,
  checkLogprobs,
  checkMaxTokens,
  checkN,
  checkNWithTemperature,
  checkPresencePenalty,
  checkStop,
  checkTemperature,
  checkTopP,
  checkTotalChoices,
} from './sampling.js';
import { checkNoGenerationPromptFlags } from './template-args.js';

export function validateCompletionRequest(raw: unknown, opts: ValidationOptions = {}): CompletionRequest {
  const body = asBody(raw);
  requireField(body, 'model');
  checkTypes(body, COMPLETION_FIELDS);
  checkPromptShape(body.prompt);
  checkPromptChars(completionPromptChars(body.prompt), limitsOf(opts));
  const nvext = parseNvext(body.nvext);
  checkStreamOptions(body);
  checkUnsupportedFields(body, COMPLETION_FIELDS, opts.ignoreUnsupportedFields === true);
  checkRules(body, nvext, opts);
  const request = knownFieldsOnly(body, COMPLETION_FIELDS) as unknown as CompletionRequest;
  request.nvext = honouredNvext(nvext, opts.nvextEnabled !== false);
  return request;
}

/** A completion request built from typed values: its fields' JSON types, the prompt size limit and the rules. */
export function checkCompletionRequest(request: CompletionRequest, opts: ValidationOptions = {}): CompletionRequest {
  const body = request as unknown as Body;
  checkTypes(body, COMPLETION_FIELDS);
  checkPromptChars(completionPromptChars(request.prompt), limitsOf(opts));
  checkStreamOptions(body);
  const nvext = request.nvext ?? null;
  checkRules(body, nvext, opts);
  return { ...request, nvext: honouredNvext(nvext, opts.nvextEnabled !== false) };
}

function checkRules(body: Body, nvext: NvExt | null, opts: ValidationOptions): void {
  checkGuidedDecoding(body);
  checkNoGenerationPromptFlags(body);
  checkModel(body.model);
  checkPromptRules(body.prompt, body.prompt_embeds);
  checkSuffix(body.suffix);
  checkMaxTokens(body.max_tokens, 'Max tokens', outputTokenLimit(opts));
  checkTemperature(body.temperature);
  checkTopP(body.top_p);
  checkN(body.n);
  checkLogprobs(body.logprobs);
  checkStop(body.stop);
  checkPresencePenalty(body.presence_penalty);
  checkFrequencyPenalty(body.frequency_penalty);
  checkBestOf(body.best_of, body.n);
  checkLogitBias(body.logit_bias);
  checkUser(body.user);
  checkCommonExtRanges(body);
  checkNWithTemperature(body.n, body.temperature);
  const n = (body.n as number | null | undefined) ?? 1;
  const batch = promptBatchSize(body.prompt);
  checkTotalChoices(batch, n);
  checkCompletionTokenIdsChoice(batch * n, nvext);
}
