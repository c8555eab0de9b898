// `dynamo-ts serve -i` driven through a real pseudo-terminal (python3's pty module, no native npm
// module): the banner, two streamed answers, and `/exit` ending the process with status 0.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { BIN } from '../../support/processes.js';

const PYTHON = '/usr/bin/python3';

// Forks the command on a pty, waits for each prompt, types a line, and prints what the terminal
// showed, then the exit status, as JSON.
const DRIVER = String.raw`
import json, os, pty, select, sys, time
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
shown = b''
def read_until(count, timeout=30):
    global shown
    end = time.time() + timeout
    while shown.count(b'> ') < count:
        ready, _, _ = select.select([fd], [], [], max(0, end - time.time()))
        if not ready:
            raise SystemExit('timed out; the terminal showed: %r' % shown[-400:])
        shown += os.read(fd, 65536)
for count, line in [(1, b'tell me a story'), (2, b'and another one'), (3, b'/exit')]:
    read_until(count)
    os.write(fd, line + b'\r')
_, status = os.waitpid(pid, 0)
try:
    while True:
        more = os.read(fd, 65536)
        if not more: break
        shown += more
except OSError:
    pass
print(json.dumps({'shown': shown.decode('utf-8', 'replace'), 'code': os.waitstatus_to_exitcode(status)}))
`;

test('serve -i chats in a terminal: streamed answers, history, /exit', { skip: !existsSync(PYTHON) && `${PYTHON} is not installed` }, () => {
  const run = spawnSync(PYTHON, ['-c', DRIVER, process.execPath, BIN, 'serve', '-i', '--speedup-ratio', '1000', '--http-port', '0'], {
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, DYN_LOG: '' },
  });
  assert.equal(run.status, 0, run.stderr || run.stdout);
  const { shown, code } = JSON.parse(run.stdout) as { shown: string; code: number };
  assert.equal(code, 0, shown);
  assert.match(shown, /Chatting with Qwen\/Qwen3-0\.6B\./);
  const visible = shown.replace(/\x1b\[[0-9;]*[A-Za-z]/g, '');
  const answers = visible.split('> ').slice(1, 3).map((turn) => turn.split('\r\n').slice(1).join('').trim());
  assert.equal(answers.length, 2);
  for (const answer of answers) assert.ok(answer.length > 0, `an answer was streamed: ${JSON.stringify(visible)}`);
  assert.doesNotMatch(visible, /"level":/, 'no log lines in the chat');
});
