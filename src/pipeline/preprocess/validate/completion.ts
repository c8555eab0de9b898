// A completion request checked, in upstream's order (reference/http.md §4.1): a raw JSON body
// (HTTP), or a request built by code from another wire shape (KServe's tensors), which skips only
// what its construction already rules out (the JSON object itself, nvext parsing, unknown fields).

import type { CompletionRequest, NvExt } from '../../../protocols/index.js';
import { checkPromptChars, completionPromptChars } from '../request-limits.js';
import { COMPLETION_FIELDS } from './fields.js';
import { checkCompletionTokenIdsChoice, honouredNvext, parseNvext } from './nvext.js';
import { limitsOf, outputTokenLimit, type ValidationOptions } from './options.js';
import { checkPromptRules, checkPromptShape, checkSuffix, promptBatchSize } from './prompt.js';
import * as root from './root.js';
import * as sampling from './sampling.js';
import { checkNoGenerationPromptFlags } from './template-args.js';

export function validateCompletionRequest(raw: unknown, opts: ValidationOptions = {}): CompletionRequest {
  const body = root.asBody(raw);
  root.requireField(body, 'model');
  root.checkTypes(body, COMPLETION_FIELDS);
  checkPromptShape(body.prompt);
  checkPromptChars(completionPromptChars(body.prompt), limitsOf(opts));
  const nvext = parseNvext(body.nvext);
  root.checkStreamOptions(body);
  root.checkUnsupportedFields(body, COMPLETION_FIELDS, opts.ignoreUnsupportedFields === true);
  checkRules(body, nvext, opts);
  const request = root.knownFieldsOnly(body, COMPLETION_FIELDS) as unknown as CompletionRequest;
  request.nvext = honouredNvext(nvext, opts.nvextEnabled !== false);
  return request;
}

/** A completion request built from typed values: its fields' JSON types, the prompt size limit and the rules. */
export function checkCompletionRequest(request: CompletionRequest, opts: ValidationOptions = {}): CompletionRequest {
  const body = request as unknown as root.Body;
  root.checkTypes(body, COMPLETION_FIELDS);
  checkPromptChars(completionPromptChars(request.prompt), limitsOf(opts));
  root.checkStreamOptions(body);
  const nvext = request.nvext ?? null;
  checkRules(body, nvext, opts);
  return { ...request, nvext: honouredNvext(nvext, opts.nvextEnabled !== false) };
}

function checkRules(body: root.Body, nvext: NvExt | null, opts: ValidationOptions): void {
  root.checkGuidedDecoding(body);
  checkNoGenerationPromptFlags(body);
  root.checkModel(body.model);
  checkPromptRules(body.prompt, body.prompt_embeds);
  checkSuffix(body.suffix);
  sampling.checkMaxTokens(body.max_tokens, 'Max tokens', outputTokenLimit(opts));
  sampling.checkTemperature(body.temperature);
  sampling.checkTopP(body.top_p);
  sampling.checkN(body.n);
  sampling.checkLogprobs(body.logprobs);
  sampling.checkStop(body.stop);
  sampling.checkPresencePenalty(body.presence_penalty);
  sampling.checkFrequencyPenalty(body.frequency_penalty);
  sampling.checkBestOf(body.best_of, body.n);
  sampling.checkLogitBias(body.logit_bias);
  root.checkUser(body.user);
  sampling.checkCommonExtRanges(body);
  sampling.checkNWithTemperature(body.n, body.temperature);
  const n = (body.n as number | null | undefined) ?? 1;
  const batch = promptBatchSize(body.prompt);
  sampling.checkTotalChoices(batch, n);
  checkCompletionTokenIdsChoice(batch * n, nvext);
}
