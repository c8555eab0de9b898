import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { COMMAND_SUMMARIES } from './commands.js';
import { envNote, formatDefault, statusNote, usageForms } from './describe-option.js';
import { GROUPS, SCOPE_COMMANDS, SUBCOMMANDS, type OptionSpec } from './option-spec.js';
import { OPTIONS } from './option-table.js';
import { describeAccepted } from './parse-value.js';

const INTRO = `# Configuration reference

<!-- Generated from the option table in src/config/options/ by src/config/render-docs.ts.
     Do not edit by hand: run \`npm run build && node dist/src/config/render-docs.js\`. -->

\`dynamo-ts <command> [options]\`, where the command is one of:

| Command | What it runs |
|---|---|
${SUBCOMMANDS.map((name) => `| \`${name}\` | ${COMMAND_SUMMARIES[name]} |`).join('\n')}

## How values are resolved

* **Precedence:** a command-line flag wins over its environment variable, which wins over the
  default. An empty environment variable (\`VAR=\`) counts as unset.
* **Syntax:** \`--flag value\` and \`--flag=value\` are both accepted. Booleans come in pairs
  (\`--x\` / \`--no-x\`; \`--x=false\` also works). List options are repeatable on the command line;
  in the environment their items are separated by spaces or commas.
* **Booleans from the environment** accept \`1/true/yes/on\` and \`0/false/no/off\`
  (case-insensitive); anything else is an error.
* **Per-command defaults:** \`frontend\` and \`mocker\` keep upstream Dynamo's defaults
  (etcd discovery, TCP request and response planes). \`serve\` runs everything in one process, so
  its defaults are \`--discovery-backend mem\`, \`--request-plane inproc\`,
  \`--response-plane inproc\` and \`--event-plane inproc\`; \`inproc\` is a dynamo-ts addition
  meaning "call the engine in the same process". \`serve\` accepts every frontend and mocker option.
* **Errors:** an invalid value, an unknown option or an option of the other command stops startup
  with exit code 2 and a message naming the flag (or the environment variable, when the value came
  from there) and the accepted values.
* **Not available yet:** options or values marked as such stop startup with a message naming them.
  Leaving such an option at its default is fine.
* **Deprecated** options are accepted, ignored, and logged as a warning.
* **Environment variables marked "dynamo-ts only"** have no upstream equivalent (upstream's mocker
  and some gRPC flags take no environment variable).
* **\`--dump-config-to FILE\`** writes the resolved configuration as pretty JSON: one key per option,
  named like the \`Config\` field (the flag in camelCase, or for environment-only options the variable
  without \`DYN_\` in camelCase), in the order of this page, with \`null\` for unset options.
`;

/** Renders docs/configuration.md from the option table. */
export function renderConfigurationDocs(): string {
  const sections = GROUPS.map((group) => {
    const rows = OPTIONS.filter((spec) => spec.group === group).map(row);
    return [`## ${group}`, '', '| Option | Environment variable | Default | Commands | Description |', '|---|---|---|---|---|', ...rows].join('\n');
  });
  return `${INTRO}\n${sections.join('\n\n')}\n`;
}

function row(spec: OptionSpec): string {
  const option = spec.flag === undefined ? '(environment only)' : code(usageForms(spec));
  const commands = SCOPE_COMMANDS[spec.scope].join(', ');
  const status = statusNote(spec);
  const description = [
    `${spec.help}.`,
    spec.type === 'bool' || spec.type === 'list' ? '' : `Must be ${describeAccepted(spec)}.`,
    status === '' ? '' : `**${capitalize(status)}.**`,
  ].filter((part) => part !== '').join(' ');
  return `| ${option} | ${code(envNote(spec))} | ${code(formatDefault(spec))} | ${commands} | ${escapeCell(description)} |`;
}

function code(text: string): string {
  return `\`${escapeCell(text)}\``;
}

function escapeCell(text: string): string {
  return text.replaceAll('|', '\\|');
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const target = fileURLToPath(new URL('../../../docs/configuration.md', import.meta.url));
  writeFileSync(target, renderConfigurationDocs());
  console.log(`wrote ${target}`);
}
