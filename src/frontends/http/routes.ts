// Every route the service serves: one per name of protocols/http-routes.ts (the compiler asks for a
// route when a name is added there), gathered from the families' faces; and Triton's, at the prefix
// its protocol fixes (no option moves it).
import type { HttpRouteName } from '../../protocols/index.js';
import { ANTHROPIC_ROUTES } from './anthropic/index.js';
import { DASHBOARD_ROUTES } from './dashboard/index.js';
import type { HttpRoute } from './http-route.js';
import { OPENAI_ROUTES } from './openai/index.js';
import { OPENAPI_ROUTES } from './openapi/index.js';
import { RESPONSES_ROUTES } from './responses/index.js';
import { SERVICE_ROUTES } from './service/index.js';
import { TRITON_PREFIX, TRITON_ROUTE } from './triton/index.js';
import { VLLM_ROUTES } from './vllm/index.js';

export const ROUTES: { readonly [K in HttpRouteName]: HttpRoute } = {
  ...OPENAI_ROUTES,
  ...RESPONSES_ROUTES,
  ...ANTHROPIC_ROUTES,
  ...SERVICE_ROUTES,
  ...OPENAPI_ROUTES,
  ...DASHBOARD_ROUTES,
  ...VLLM_ROUTES,
};

export const FIXED_ROUTES: readonly { readonly path: string; readonly route: HttpRoute }[] = [{ path: TRITON_PREFIX, route: TRITON_ROUTE }];
