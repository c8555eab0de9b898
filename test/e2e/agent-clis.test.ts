// The two agent CLIs people point at a self-hosted gateway, driven through a whole tool loop against
// the mocker (docs/mocker-script.md): `codex exec` over /v1/responses and `claude -p` over
// /v1/messages are each asked to create a marker file; the scripted model answers the task with a
// tool call in Qwen3's own (hermes) format, the CLI runs it, and the turn after its result gets the
// final answer, which the CLI prints.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { agentCli } from '../support/agent-clis.js';
import { serveInProcess } from '../support/in-process.js';

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

/** The task turn answers with one hermes tool call; the turn after the result, with the final text. */
function script(tool: string, args: Record<string, string>): string {
  const call = JSON.stringify(`<tool_call>\n${JSON.stringify({ name: tool, arguments: args })}\n</tool_call>`);
  return `replies:\n  - turn: 0\n    contains: marker\n    text: ${call}\n  - turn: 1\n    text: ${JSON.stringify(FINAL)}\n  - text: "OK."\n`;
}

async function serveScript(yaml: string) {
  const dir = mkdtempSync(path.join(tmpdir(), 'agent-script-'));
  writeFileSync(path.join(dir, 'script.yaml'), yaml);
  return serveInProcess([
    '--enable-anthropic-api', '--dyn-tool-call-parser', 'hermes', '--dyn-reasoning-parser', 'qwen3',
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

describe('codex exec through a tool loop (Responses API)', () => {
  let server: Awaited<ReturnType<typeof serveScript>>;
  let codex: string;
  before(async () => {
    codex = agentCli('codex');
    server = await serveScript(script('exec_command', { cmd: 'touch marker.txt' }));
  });
  after(() => server.service.stop());

  test('runs the scripted command and prints the final answer', async () => {
    const { cwd, home } = workspace();
    const provider = `model_providers.dyn={name="dyn",base_url="${server.baseUrl}/v1",wire_api="responses"}`;
    const { stdout } = await run(
      codex,
      ['exec', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', '-c', 'model_provider=dyn', '-c', provider, '-m', MODEL, 'Create the marker file'],
      { cwd, env: { PATH: process.env.PATH ?? '', HOME: home }, timeout: 240_000 },
    );
    assert.ok(existsSync(path.join(cwd, 'marker.txt')), 'codex ran the tool call');
    assert.match(stdout, new RegExp(FINAL.replaceAll('.', '\\.')));
  });
});

describe('claude -p through a tool loop (Messages API)', () => {
  let server: Awaited<ReturnType<typeof serveScript>>;
  let claude: string;
  before(async () => {
    claude = agentCli('claude');
    server = await serveScript(script('Bash', { command: 'touch marker.txt', description: 'Create the marker' }));
  });
  after(() => server.service.stop());

  test('runs the scripted command and prints the final answer', async () => {
    const { cwd, home } = workspace();
    const { stdout } = await run(claude, ['-p', 'Create the marker file', '--model', MODEL, '--allowedTools=Bash'], {
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
