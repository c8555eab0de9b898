// `--frontend-route-extension MODULE:FUNCTION`: load each extension module before anything listens,
// and let it register its routes on the HTTP server. Every failure is a startup error naming the
// extension, so a typo never leaves a frontend running without the routes it was asked for.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ConfigError, type Config } from '../../config/index.js';
import type { HttpService, NamedRouteExtension } from '../../frontends/http/index.js';
import type { ModelManager } from '../../models/index.js';
import type { Logger } from '../../observability/index.js';

const FLAG = '--frontend-route-extension';

/** Route extensions need the HTTP API server; upstream refuses them with -i and with KServe gRPC too. */
function assertExtensionsApply(config: Config): void {
  if (config.frontendRouteExtension.length === 0) return;
  if (config.interactive) throw new ConfigError(`${FLAG} cannot be combined with --interactive, which serves no HTTP routes`);
  if (config.kserveGrpcServer || config.kserveMode) {
    throw new ConfigError(`${FLAG} cannot be combined with --kserve-grpc-server: extensions add routes to the OpenAI HTTP server`);
  }
}

/**
 * A path (absolute, `./x.mjs`, `../x.js`, or anything ending in .js/.mjs) is resolved against the
 * working directory; anything else is a package name, resolved the way this installation resolves
 * its own imports.
 */
function moduleUrl(module: string): string {
  const isPath = module.startsWith('.') || module.startsWith('/') || /\.m?js$/.test(module);
  return isPath ? pathToFileURL(resolve(module)).href : module;
}

async function loadOne(spec: string): Promise<NamedRouteExtension> {
  const colon = spec.lastIndexOf(':');
  const module = colon > 0 ? spec.slice(0, colon) : '';
  const exportName = colon > 0 ? spec.slice(colon + 1) : '';
  if (module === '' || exportName === '') {
    throw new ConfigError(`${FLAG} must be MODULE:FUNCTION (e.g. ./routes.mjs:register), got '${spec}'`);
  }
  let loaded: Record<string, unknown>;
  try {
    loaded = (await import(moduleUrl(module))) as Record<string, unknown>;
  } catch (err) {
    throw new ConfigError(`${FLAG} ${spec}: cannot load module '${module}': ${(err as Error).message}`);
  }
  const register = loaded[exportName];
  if (typeof register !== 'function') {
    const exported = Object.keys(loaded).filter((k) => typeof loaded[k] === 'function');
    throw new ConfigError(
      `${FLAG} ${spec}: module '${module}' exports no function '${exportName}' (its functions: ${exported.join(', ') || 'none'})`,
    );
  }
  return { name: spec, register: register as NamedRouteExtension['register'] };
}

/** Loads every configured extension, in order; throws ConfigError for the first bad one. */
export async function loadRouteExtensions(config: Config): Promise<NamedRouteExtension[]> {
  assertExtensionsApply(config);
  const extensions: NamedRouteExtension[] = [];
  for (const spec of config.frontendRouteExtension) extensions.push(await loadOne(spec));
  return extensions;
}

/** Lets each extension register its routes on the (not yet listening) HTTP server. */
export async function installRouteExtensions(
  http: HttpService,
  models: ModelManager,
  logger: Logger,
  extensions: readonly NamedRouteExtension[],
): Promise<void> {
  // Once the OpenAPI plugin has loaded, the routes extensions add land in /openapi.json too.
  if (extensions.length > 0) await http.app.after();
  for (const { name, register } of extensions) {
    try {
      await register({ app: http.app, models, logger: logger.child({ routeExtension: name }) });
    } catch (err) {
      throw new ConfigError(`${FLAG} ${name} failed to register its routes: ${(err as Error)?.message ?? String(err)}`);
    }
  }
  if (extensions.length > 0) logger.info({ extensions: extensions.map((e) => e.name) }, 'route extensions installed');
}
