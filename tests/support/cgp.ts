import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** The command as package.json's `bin` names it. */
const CGP = path.resolve('bin/cgp.mjs');

export interface CgpRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `cgp` as a user does: a process of its own, in `cwd`, its output captured (not a terminal). */
export function cgp(args: readonly string[], options: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<CgpRun> {
  return new Promise((resolve, reject) => {
    // A user's environment: not the test run's LOG_LEVEL.
    const env = { ...process.env, ...options.env };
    delete env.LOG_LEVEL;
    const child = spawn(process.execPath, [CGP, ...args], { cwd: options.cwd, env, stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A temporary folder holding `files` (relative path -> content). */
export function folderWith(files: Record<string, string>): string {
  const folder = mkdtempSync(path.join(tmpdir(), 'cgp-cli-'));
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(folder, file)), { recursive: true });
    writeFileSync(path.join(folder, file), content);
  }
  return folder;
}
