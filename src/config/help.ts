import { COMMAND_SUMMARIES } from './commands.js';
import { envNote, formatDefault, statusNote, usageForms } from './describe-option.js';
import { appliesTo, GROUPS, SUBCOMMANDS, type OptionSpec, type Subcommand } from './option-spec.js';
import { OPTIONS } from './option-table.js';

const COLUMN = 44;

export function renderTopHelp(): string {
  const width = Math.max(...SUBCOMMANDS.map((name) => name.length)) + 4;
  return [
    'Usage: dynamo-ts <command> [options]',
    '',
    'Commands:',
    ...SUBCOMMANDS.map((name) => `  ${name.padEnd(width)}${COMMAND_SUMMARIES[name]}`),
    '',
    'Options:',
    '  -h, --help     show help (also: dynamo-ts <command> --help)',
    '  -V, --version  print the version',
    '',
  ].join('\n');
}

export function renderCommandHelp(command: Subcommand): string {
  const lines = [
    `Usage: dynamo-ts ${command === 'worker' ? 'worker openai' : command} [options]`,
    '',
    `${COMMAND_SUMMARIES[command]}.`,
    '',
    'Every option can also be set by its environment variable; the command line wins over the',
    'environment and the environment over the default. Booleans accept 1/true/yes/on and',
    '0/false/no/off in the environment; on the command line use --x / --no-x.',
  ];
  for (const group of GROUPS) {
    const specs = OPTIONS.filter((spec) => spec.group === group && appliesTo(spec, command));
    if (specs.length === 0) continue;
    lines.push('', `${group}:`);
    for (const spec of specs) lines.push(...optionLines(spec, command));
  }
  lines.push('', 'Other:', `  ${'-h, --help'.padEnd(COLUMN - 2)}show this help`, `  ${'-V, --version'.padEnd(COLUMN - 2)}print the version`, '');
  return lines.join('\n');
}

function optionLines(spec: OptionSpec, command: Subcommand): string[] {
  const left = `  ${usageForms(spec)}`;
  const details = [spec.flag === undefined ? 'env only' : `env ${envNote(spec)}`, `default ${formatDefault(spec, command)}`];
  const status = statusNote(spec);
  if (status !== '') details.push(status);
  const right = [spec.help, details.join('; ')];
  const indent = ' '.repeat(COLUMN);
  if (left.length < COLUMN - 1) return [`${left.padEnd(COLUMN)}${right[0]}`, `${indent}${right[1]}`];
  return [left, ...right.map((text) => `${indent}${text}`)];
}
