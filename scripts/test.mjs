// `npm test`: the lint and every test side by side. The end-to-end files share one serverless offline and
// one database, so they run one at a time; they wait on the browser, HTTP and child processes much of the
// time, and alone they left one of this machine's 2 cores idle for over 3 minutes. So they run in a vitest
// process of their own beside the other projects' files (and the lint), not before them. Being one file
// after another, they are the run's longest chain: the others and the lint run at the lowest CPU priority
// (nice), so they take what the end-to-end files leave instead of slowing them down.
//
// The tests write as they go, line by line (the two vitest processes' lines never split; each line names
// its project). The lint's output is held and printed once everything has ended. Fails if anything fails.
// `npm test -- <vitest options>` runs one vitest with those options beside the lint.

import { spawn, spawnSync } from 'node:child_process';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const vitest = ['node_modules/vitest/vitest.mjs', 'run'];

/** Whether `nice` is here (not on Windows, nor on a machine without coreutils): without it, everything runs at one priority. */
const canNice = process.platform !== 'win32' && spawnSync('nice', ['-n', '0', process.execPath, '--version']).status === 0;

/** `command` and `args` at the lowest CPU priority, for it and every process it starts (where `nice` is). */
const niced = (command, args) => (canNice ? ['nice', ['-n', '19', command, ...args]] : [command, args]);

/**
 * Runs `command`; its output written through whole lines at a time (`through`) or held; answers its exit
 * code and what it held. `yielding`: at the lowest CPU priority.
 */
function run(command, args, { through, yielding }) {
  return new Promise((resolve) => {
    const [program, programArgs] = yielding ? niced(command, args) : [command, args];
    const child = spawn(program, programArgs, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...colours } });
    let held = '';
    const pending = { stdout: '', stderr: '' };
    const take = (stream) => (chunk) => {
      if (!through) return void (held += chunk);
      const text = pending[stream] + chunk;
      const end = text.lastIndexOf('\n') + 1;
      process[stream].write(text.slice(0, end));
      pending[stream] = text.slice(end);
    };
    child.stdout.on('data', take('stdout'));
    child.stderr.on('data', take('stderr'));
    child.on('error', (error) => resolve({ code: 1, held: `${held}${error.message}\n` }));
    child.on('close', (code, signal) => {
      for (const stream of ['stdout', 'stderr']) process[stream].write(pending[stream]);
      resolve({ code: code ?? (signal ? 1 : 0), held });
    });
  });
}

// Through a pipe, vitest writes no colours unless asked: as in a terminal when this runs in one.
const colours = process.stdout.isTTY ? { FORCE_COLOR: '1' } : {};
const given = process.argv.slice(2);
const others = ['--project', 'unit', '--project', 'cue', '--project', 'integration', '--project', 'e2e-own-stack'];
const tests = given.length
  ? [run(process.execPath, [...vitest, ...given], { through: true })]
  : [
      run(process.execPath, [...vitest, '--project', 'e2e'], { through: true }),
      run(process.execPath, [...vitest, ...others], { through: true, yielding: true }),
    ];
const [lint, ...ran] = await Promise.all([run(npm, ['run', 'lint'], { through: false, yielding: !given.length }), ...tests]);
process.stdout.write(`\n[lint] ${lint.code === 0 ? 'passed' : 'FAILED'}\n${lint.held}`);
process.exit(lint.code || ran.find((result) => result.code !== 0)?.code || 0);
