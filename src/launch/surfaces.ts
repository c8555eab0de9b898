// Which optional surfaces the frontend serves. Each has upstream's two spellings: the opt-in
// DYN_ENABLE_FRONTEND_* (default on) and the opt-out DYN_DISABLE_FRONTEND_*; either one turns it off.
import type { Config } from '../config/index.js';

/** The admin routes and calls (/busy_threshold, Triton repository load/unload). */
export function adminApiServed(config: Config): boolean {
  return config.enableAdminApi && !config.disableFrontendAdminApi;
}

/** The nvext request extension. */
export function nvextRead(config: Config): boolean {
  return config.enableFrontendNvext && !config.disableFrontendNvext;
}
