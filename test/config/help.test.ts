import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { OPTIONS, parseCommandLine, SCOPE_COMMANDS, SUBCOMMANDS, type OptionSpec, type Subcommand } from '../../src/config/index.js';

function helpText(argv: string[]): string {
  const result = parseCommandLine(argv, {});
  assert.equal(result.kind, 'help');
  return (result as { text: string }).text;
}

function appliesTo(scope: OptionSpec['scope'], command: Subcommand): boolean {
  return SCOPE_COMMANDS[scope].includes(command);
}

test('top-level help lists the subcommands', () => {
  for (const argv of [[], ['--help'], ['-h'], ['help']]) {
    const text = helpText(argv);
    assert.match(text, /^Usage: dynamo-ts <command> \[options\]/);
    for (const command of SUBCOMMANDS) assert.match(text, new RegExp(`^  ${command} `, 'm'));
  }
});

test('each subcommand help lists every applicable option with its env var and default', () => {
  for (const command of SUBCOMMANDS) {
    const text = helpText([command, '--help']);
    assert.equal(helpText(['help', command]), text);
    assert.match(text, new RegExp(`^Usage: dynamo-ts ${command === 'worker' ? 'worker openai' : command} \\[options\\]`));
    for (const spec of OPTIONS) {
      const lines = text.split('\n');
      const name = spec.flag === undefined ? `${spec.env}=` : `--${spec.flag}`;
      // The name whole: --upstream is not --upstream-config.
      const whole = (text: string): boolean => text.startsWith(name) && !/[\w-]/.test(text.charAt(name.length));
      const at = lines.findIndex((line) => whole(line.trimStart()) || line.split(', ').slice(1).some(whole));
      if (!appliesTo(spec.scope, command)) {
        assert.equal(at, -1, `${name} should not be in '${command}' help`);
        continue;
      }
      assert.notEqual(at, -1, `${name} missing from '${command}' help`);
      const block = lines.slice(at, at + 3).join('\n');
      assert.ok(block.includes(spec.env), `${name}: env var ${spec.env} missing`);
      assert.match(block, /default /, `${name}: default missing`);
    }
  }
});

test('help groups options and shows per-command defaults', () => {
  const serve = helpText(['serve', '--help']);
  for (const group of ['HTTP & Networking:', 'Router:', 'Model Discovery:', 'Infrastructure:', 'Mocker Engine:']) {
    assert.ok(serve.includes(`\n${group}\n`), group);
  }
  assert.match(serve, /env DYN_DISCOVERY_BACKEND; default mem/);
  assert.match(helpText(['frontend', '--help']), /env DYN_DISCOVERY_BACKEND; default etcd/);
  assert.match(serve, /--enable-prefix-caching, --no-enable-prefix-caching/);
  assert.match(serve, /DYN_MOCKER_SPEEDUP_RATIO \(dynamo-ts only\)/);
});

test('--help wins over invalid options after the command', () => {
  assert.match(helpText(['serve', '--http-port', '70000', '--help']), /^Usage: dynamo-ts serve/);
});

test('--version prints the package version', () => {
  const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
  for (const argv of [['--version'], ['-V'], ['serve', '--version']]) {
    assert.deepEqual(parseCommandLine(argv, {}), { kind: 'version', text: `dynamo-ts ${pkg.version}` });
  }
});
