// The model type the Responses routes need, and how the wrong-type 400 names them.
import type { ModelApi } from '../../../protocols/index.js';

export const RESPONSES_API: ModelApi = { type: 'Chat', describe: 'the Responses API' };
