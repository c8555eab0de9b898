// Where each HTTP route lives: its path option (one per row of protocols/http-routes.ts), checked
// for clashes before anything listens (two routes on one path would otherwise fail deep inside fastify).
import { ConfigError, httpPathOption, type Config } from '../../config/index.js';
import { HTTP_ROUTE_NAMES, perHttpRoute, type HttpPaths } from '../../protocols/index.js';

/** The configured path of every route; throws ConfigError (exit 2) when two routes share one. */
export function httpPaths(config: Config): HttpPaths {
  const owner = new Map<string, string>();
  for (const name of HTTP_ROUTE_NAMES) {
    const { key, env } = httpPathOption(name);
    const other = owner.get(config[key]);
    if (other !== undefined) throw new ConfigError(`${other} and ${env} are both '${config[key]}': every route needs its own path`);
    owner.set(config[key], env);
  }
  return perHttpRoute((name) => config[httpPathOption(name).key]);
}
