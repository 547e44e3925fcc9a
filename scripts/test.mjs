// `npm test`: the lint and every test side by side, on a machine whose cores the tests alone do not keep
// busy (their end-to-end files run one at a time, last). The tests write as they go; the lint's output
// is held and printed once both have ended, so the two never interleave. Fails if either fails.

import { spawn } from 'node:child_process';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** Runs `command`, its output written through (`through`) or held; answers its exit code and what it held. */
function run(command, args, through) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ['ignore', through ? 'inherit' : 'pipe', through ? 'inherit' : 'pipe'] });
    let held = '';
    child.stdout?.on('data', (chunk) => (held += chunk));
    child.stderr?.on('data', (chunk) => (held += chunk));
    child.on('error', (error) => resolve({ code: 1, held: `${held}${error.message}\n` }));
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), held }));
  });
}

const [lint, tests] = await Promise.all([
  run(npm, ['run', 'lint'], false),
  run(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', ...process.argv.slice(2)], true),
]);
process.stdout.write(`\n[lint] ${lint.code === 0 ? 'passed' : 'FAILED'}\n${lint.held}`);
process.exit(lint.code || tests.code);
