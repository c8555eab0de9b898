// Upstream's worker router advertisement: a worker set started with --router-mode declares in its
// card how the frontend should route to it (with the KV tuning flags it was given, in kv mode); a
// worker started without it declares nothing and inherits the frontend's settings, so workers never
// override the frontend by a default.
import type { Config, ConfigSources } from '../config/index.js';
import { declaredRouterConfig } from '../models/assembly/index.js';
import { routerSettings } from './model-settings.js';

/** The card's `router_config`, or null when the worker was not given --router-mode (flag or DYN_ROUTER_MODE). */
export function workerRouterConfig(config: Config, sources: Pick<ConfigSources, 'routerMode'>): Record<string, unknown> | null {
  if (sources.routerMode === 'default') return null;
  return declaredRouterConfig(config.routerMode, routerSettings(config).kv);
}
