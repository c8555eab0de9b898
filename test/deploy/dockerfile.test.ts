import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT } from '../support/processes.js';

// No docker here: the Dockerfile is checked by reading it (stages, user, probes, what it copies).

interface Instruction { op: string; args: string }
interface Stage { name: string; from: string; steps: Instruction[] }

/** Instructions with line continuations joined and comments dropped, split into stages by FROM. */
function parseDockerfile(text: string): { args: Instruction[]; stages: Stage[] } {
  const lines = text.replace(/\\\r?\n/g, ' ').split(/\r?\n/).map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  const args: Instruction[] = [];
  const stages: Stage[] = [];
  for (const line of lines) {
    const [, op = '', rest = ''] = /^(\S+)\s*(.*)$/.exec(line) ?? [];
    const instruction = { op: op.toUpperCase(), args: rest };
    if (instruction.op === 'FROM') {
      const [from = '', , name = ''] = rest.split(/\s+/);
      stages.push({ name: name || String(stages.length), from, steps: [] });
    } else if (stages.length === 0) args.push(instruction);
    else stages.at(-1)!.steps.push(instruction);
  }
  return { args, stages };
}

const DOCKERFILE = parseDockerfile(readFileSync(path.join(REPO_ROOT, 'Dockerfile'), 'utf8'));
const IGNORED = readFileSync(path.join(REPO_ROOT, '.dockerignore'), 'utf8').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));

const steps = (stage: Stage, op: string) => stage.steps.filter((s) => s.op === op).map((s) => s.args);
const stage = (name: string) => {
  const found = DOCKERFILE.stages.find((s) => s.name === name);
  assert.ok(found, `stage ${name} exists`);
  return found;
};

test('Dockerfile: a build stage that compiles and a runtime stage on the same Node 20 slim base', () => {
  assert.deepEqual(DOCKERFILE.stages.map((s) => s.name), ['build', 'runtime']);
  assert.match(DOCKERFILE.args.find((a) => a.op === 'ARG')?.args ?? '', /^NODE_IMAGE=node:20-[a-z]+-slim$/);
  for (const s of DOCKERFILE.stages) assert.equal(s.from, '${NODE_IMAGE}');
  const build = steps(stage('build'), 'RUN');
  assert.ok(build.some((r) => /\bnpm ci\b/.test(r) && !r.includes('--omit=dev')), 'build installs dev dependencies');
  assert.ok(build.some((r) => /\btsc -p tsconfig\.json\b/.test(r)), 'build runs tsc');
});

test('Dockerfile: runtime holds production dependencies and the compiled code only, as a non-root user', () => {
  const runtime = stage('runtime');
  assert.ok(steps(runtime, 'RUN').some((r) => /\bnpm ci\b.*--omit=dev/.test(r)), 'runtime runs npm ci --omit=dev');
  assert.ok(steps(runtime, 'COPY').includes('--from=build /app/dist/src ./dist/src'), 'runtime takes dist/src from the build stage');
  const users = steps(runtime, 'USER');
  assert.equal(users.length, 1);
  assert.ok(!['root', '0'].includes(users[0]!.split(':')[0]!), 'runtime user is not root');
  // The user is the last word: no RUN after it could assume root.
  const lastUser = runtime.steps.findIndex((s) => s.op === 'USER');
  assert.ok(runtime.steps.slice(lastUser).every((s) => s.op !== 'RUN'));
});

test('Dockerfile: ports, health check on /live and the CLI as entrypoint', () => {
  const runtime = stage('runtime');
  assert.deepEqual(steps(runtime, 'EXPOSE').flatMap((e) => e.split(/\s+/)), ['8000', '8001']);
  const [healthcheck] = steps(runtime, 'HEALTHCHECK');
  assert.match(healthcheck ?? '', /CMD \["node", "-e", ".*\/live'/);
  // The node flags `npm start` runs with, so the image serves as the measured default does.
  const start = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')).scripts.start as string;
  const nodeFlags = /\bnode ((?:--\S+ )*)bin\/dynamo-ts\.js/.exec(start)![1]!.trim().split(' ').filter(Boolean);
  assert.deepEqual(nodeFlags, ['--max-semi-space-size=32', '--no-allocation-site-pretenuring']);
  assert.deepEqual(JSON.parse(steps(runtime, 'ENTRYPOINT')[0]!), ['node', ...nodeFlags, '/app/bin/dynamo-ts.js']);
  assert.deepEqual(JSON.parse(steps(runtime, 'CMD')[0]!), ['serve', '--http-port', '8000', '--grpc-port', '8001']);
});

test('Dockerfile: every path copied from the context exists and is not in .dockerignore', () => {
  const sources = DOCKERFILE.stages.flatMap((s) => steps(s, 'COPY'))
    .filter((c) => !c.startsWith('--from='))
    .flatMap((c) => c.split(/\s+/).slice(0, -1));
  assert.ok(sources.length > 0);
  for (const source of sources) {
    assert.ok(existsSync(path.join(REPO_ROOT, source)), `${source} exists`);
    assert.ok(!IGNORED.some((pattern) => source === pattern || source.startsWith(`${pattern}/`)), `${source} is not ignored`);
  }
  for (const excluded of ['node_modules', 'dist', '.git']) assert.ok(IGNORED.includes(excluded), `.dockerignore drops ${excluded}`);
});
