export { ConfigError } from './errors.js';
export { withExtraEngineArgs } from './extra-engine-args.js';
export { parseCommandLine, type CliResult } from './command-line.js';
export { type Config, type ConfigSources, OPTIONS } from './option-table.js';
export { SCOPE_COMMANDS, SUBCOMMANDS, type OptionSpec, type Subcommand, type ValueSource } from './option-spec.js';
export { serializeConfig, writeConfigDump } from './dump.js';
export { renderCommandHelp, renderTopHelp } from './help.js';
export { renderConfigurationDocs } from './render-docs.js';
export { packageVersion, versionText } from './version.js';
