// The two agent CLIs people point at a self-hosted gateway, driven through a whole tool loop against
// the mocker (docs/mocker-script.md): `codex exec` over /v1/responses and `claude -p` over
// /v1/messages are each asked to create a marker file; the scripted model answers the task with a
// tool call in the model's own format, the CLI runs it, and the turn after its result gets the
// final answer, which the CLI prints. Two models: Qwen3 (hermes calls, a template that leaves the
// model to open its reasoning) and the Qwen3-Coder style (XML calls read by qwen3_coder; Qwen3.5's
// template, which opens the reasoning span for the model and refuses late system messages).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { agentCli } from '../support/agent-clis.js';
import { serveInProcess } from '../support/in-process.js';
import { modelFolderWithTemplate } from '../support/model-folders.js';

/** Runs a CLI with no standard input (Codex would wait to read a prompt from an open pipe); its stdout. */
function run(exe: string, args: string[], opts: { cwd: string; env: Record<string, string>; timeout: number }): Promise<{ stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(exe, args, { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeout);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve({ stdout });
      else reject(new Error(`${path.basename(exe)} exited with ${code ?? signal}\nstdout:\n${stdout.slice(-3000)}\nstderr:\n${stderr.slice(-3000)}`));
    });
  });
}
const MODEL = 'Qwen/Qwen3-0.6B';
const FINAL = 'Created the marker file.';

interface ModelShape {
  what: string;
  /** serve's flags for the model and its parsers. */
  flags: string[];
  model: string;
  /** A call in the model's own format. */
  call(tool: string, args: Record<string, string>): string;
  /** What the reply opens with: a template that opened the reasoning span needs it closed first. */
  lead: string;
}

const MODELS: ModelShape[] = [
  {
    what: 'Qwen3, hermes calls',
    flags: ['--dyn-tool-call-parser', 'hermes'],
    model: MODEL,
    call: (tool, args) => `<tool_call>\n${JSON.stringify({ name: tool, arguments: args })}\n</tool_call>`,
    lead: '',
  },
  {
    what: 'Qwen3-Coder style, XML calls behind Qwen3.5\'s template',
    flags: ['--model-path', modelFolderWithTemplate('Qwen/Qwen3.5-4B'), '--model-name', 'coder', '--dyn-tool-call-parser', 'qwen3_coder'],
    model: 'coder',
    call: (tool, args) =>
      `<tool_call>\n<function=${tool}>\n${Object.entries(args).map(([k, v]) => `<parameter=${k}>\n${v}\n</parameter>\n`).join('')}</function>\n</tool_call>`,
    lead: 'The user wants a marker file.\n</think>\n\n',
  },
];

/** The task turn answers with one tool call; the turn after the result, with the final text. */
function script(shape: ModelShape, tool: string, args: Record<string, string>): string {
  const reply = (text: string) => JSON.stringify(shape.lead + text);
  return `replies:\n  - turn: 0\n    contains: marker\n    text: ${reply(shape.call(tool, args))}\n  - turn: 1\n    text: ${reply(FINAL)}\n  - text: ${reply('OK.')}\n`;
}

async function serveScript(shape: ModelShape, yaml: string) {
  const dir = mkdtempSync(path.join(tmpdir(), 'agent-script-'));
  writeFileSync(path.join(dir, 'script.yaml'), yaml);
  return serveInProcess([
    '--enable-anthropic-api', '--dyn-reasoning-parser', 'qwen3', ...shape.flags,
    '--mocker-script', path.join(dir, 'script.yaml'), '--speedup-ratio', '100',
  ]);
}

/** A fresh working folder and home for one CLI run, so no user configuration leaks in. */
function workspace(): { cwd: string; home: string } {
  const root = mkdtempSync(path.join(tmpdir(), 'agent-cli-'));
  const cwd = path.join(root, 'work');
  const home = path.join(root, 'home');
  for (const dir of [cwd, home]) mkdirSync(dir, { recursive: true });
  return { cwd, home };
}

for (const shape of MODELS) describe(`codex exec through a tool loop (Responses API), ${shape.what}`, () => {
  let server: Awaited<ReturnType<typeof serveScript>>;
  let codex: string;
  before(async () => {
    codex = agentCli('codex');
    server = await serveScript(shape, script(shape, 'exec_command', { cmd: 'touch marker.txt' }));
  });
  after(() => server.service.stop());

  test('runs the scripted command and prints the final answer', async () => {
    const { cwd, home } = workspace();
    const provider = `model_providers.dyn={name="dyn",base_url="${server.baseUrl}/v1",wire_api="responses"}`;
    const { stdout } = await run(
      codex,
      ['exec', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', '-c', 'model_provider=dyn', '-c', provider, '-m', shape.model, 'Create the marker file'],
      { cwd, env: { PATH: process.env.PATH ?? '', HOME: home }, timeout: 240_000 },
    );
    assert.ok(existsSync(path.join(cwd, 'marker.txt')), 'codex ran the tool call');
    assert.match(stdout, new RegExp(FINAL.replaceAll('.', '\\.')));
  });
});

for (const shape of MODELS) describe(`claude -p through a tool loop (Messages API), ${shape.what}`, () => {
  let server: Awaited<ReturnType<typeof serveScript>>;
  let claude: string;
  before(async () => {
    claude = agentCli('claude');
    server = await serveScript(shape, script(shape, 'Bash', { command: 'touch marker.txt', description: 'Create the marker' }));
  });
  after(() => server.service.stop());

  test('runs the scripted command and prints the final answer', async () => {
    const { cwd, home } = workspace();
    const { stdout } = await run(claude, ['-p', 'Create the marker file', '--model', shape.model, '--allowedTools=Bash'], {
      cwd,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: home,
        ANTHROPIC_BASE_URL: server.baseUrl,
        ANTHROPIC_API_KEY: 'unused',
        // The model's context is 40,960 tokens: Claude Code's default 32,000 output tokens would not fit.
        CLAUDE_CODE_MAX_OUTPUT_TOKENS: '1024',
        DISABLE_TELEMETRY: '1',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      },
      timeout: 240_000,
    });
    assert.ok(existsSync(path.join(cwd, 'marker.txt')), 'claude ran the tool call');
    assert.match(stdout, new RegExp(FINAL.replaceAll('.', '\\.')));
  });
});
