import type { LiveOption, OptionSpec, ValueOf, ValueSource } from './option-spec.js';
import { httpOptions } from './options/http.js';
import { securityOptions } from './options/security.js';
import { routerOptions } from './options/router.js';
import { runtimeOptions } from './options/runtime.js';
import { kserveOptions } from './options/kserve.js';
import { frontendFeatureOptions } from './options/frontend-features.js';
import { responsesOptions } from './options/responses.js';
import { rlOptions } from './options/rl.js';
import { mockerOptions } from './options/mocker.js';
import { bridgeOptions } from './options/bridge.js';
import { benchOptions } from './options/bench.js';
import { deprecatedOptions } from './options/deprecated.js';

const table = [
  ...httpOptions,
  ...securityOptions,
  ...routerOptions,
  ...runtimeOptions,
  ...kserveOptions,
  ...frontendFeatureOptions,
  ...responsesOptions,
  ...rlOptions,
  ...mockerOptions,
  ...bridgeOptions,
  ...benchOptions,
  ...deprecatedOptions,
] as const;

type TableRow = (typeof table)[number];

/** Every option dynamo-ts knows, in display order. */
export const OPTIONS: readonly OptionSpec[] = table;

/**
 * The resolved configuration: one camelCase field per (non-deprecated) option. Options without a
 * default are `undefined` when unset.
 */
export type Config = { readonly [S in LiveOption<TableRow> as S['key']]: ValueOf<S> };

/** Where each field of `Config` came from, for startup logging. */
export type ConfigSources = { readonly [K in keyof Config]: ValueSource };
