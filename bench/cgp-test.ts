/**
 * Bench of `cgp test` as a user runs it: one process, PRODUCT_POLICY against 1,000 descriptor files
 * of ~4 KB (YAML, in a temporary folder, named by a glob), wall time and files/s; and the same
 * process on one descriptor, the start-up it costs. Run alone with `node --import tsx bench/cgp-test.ts`.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

import YAML from 'yaml';

import { PRODUCT_POLICY, productDescriptor } from './cue-throughput';

const FILES = 1000;
const CGP = path.resolve('bin/cgp.mjs');

/** Runs `cgp test` in `cwd`; its wall time and the results of its JSON. */
function timedTest(cwd: string, glob: string): Promise<{ ms: number; results: number; code: number | null }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [CGP, 'test', 'policy.cue', glob, '--format', 'json'], { cwd, stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = performance.now() - started;
      try {
        resolve({ ms, code, results: (JSON.parse(stdout) as { results: unknown[] }).results.length });
      } catch (error) {
        reject(new Error(`cgp test exited ${code} without a JSON report: ${(error as Error).message}`));
      }
    });
  });
}

export async function benchCgpTest(): Promise<void> {
  const folder = await mkdtemp(path.join(tmpdir(), 'cgp-bench-'));
  try {
    await mkdir(path.join(folder, 'descriptors'));
    await writeFile(path.join(folder, 'policy.cue'), PRODUCT_POLICY);
    await Promise.all(
      Array.from({ length: FILES }, (_, i) =>
        writeFile(path.join(folder, 'descriptors', `product-${String(i).padStart(4, '0')}.yaml`), YAML.stringify(productDescriptor(i))),
      ),
    );
    const one = await timedTest(folder, 'descriptors/product-0000.yaml');
    const all = await timedTest(folder, 'descriptors/*.yaml');
    // Three in ten descriptors break PRODUCT_POLICY: the run must fail, with a result for every file.
    if (all.code !== 1 || all.results !== FILES) throw new Error(`cgp test gave ${all.results} results, exit ${all.code}; expected ${FILES}, exit 1`);
    console.log(
      `cgp test, 1 policy x ${FILES} descriptor files of ~4 KB: ${(all.ms / 1000).toFixed(2)} s wall (${Math.round((FILES * 1000) / all.ms)} files/s), ` +
        `of which start-up ~${(one.ms / 1000).toFixed(2)} s (the same process on 1 file)`,
    );
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await benchCgpTest();
