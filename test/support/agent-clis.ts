// The agent CLIs the end-to-end tests drive, installed on first use, pinned, into a cache folder of
// their own (they are ~650 MB with their platform binaries: not project dependencies).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';

export const AGENT_CLIS = { codex: { pkg: '@openai/codex', version: '0.171.0', bin: 'codex' }, claude: { pkg: '@anthropic-ai/claude-code', version: '2.1.197', bin: 'claude' } } as const;

export type AgentCli = keyof typeof AGENT_CLIS;

const CACHE = process.env.DYNAMO_TS_AGENT_CLI_CACHE ?? path.join(homedir(), '.cache', 'dynamo-ts', 'agent-clis');

/** The CLI's executable, installed with npm into the cache on first use. */
export function agentCli(name: AgentCli): string {
  const { pkg, version, bin } = AGENT_CLIS[name];
  const dir = path.join(CACHE, `${name}-${version}`);
  const exe = path.join(dir, 'node_modules', '.bin', bin);
  if (existsSync(exe)) return exe;
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: `agent-cli-${name}`, private: true }));
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--no-save', `${pkg}@${version}`], { cwd: dir, stdio: 'pipe', timeout: 900_000 });
  return exe;
}
