// Runs before `npm start` and `npm test`: installs the locked dependencies when node_modules is
// missing or older than package-lock.json or the patches of patches/ (applied by patch-package
// after the install), so a fresh clone needs nothing installed by hand.

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';

const stampFile = 'node_modules/.cgp-install-stamp';
const hash = createHash('sha256').update(readFileSync('package-lock.json'));
for (const patch of existsSync('patches') ? readdirSync('patches').sort() : []) hash.update(patch).update(readFileSync(`patches/${patch}`));
const lockHash = hash.digest('hex');

if (!existsSync(stampFile) || readFileSync(stampFile, 'utf8') !== lockHash) {
  process.stdout.write('[install] installing the locked dependencies (npm ci)…\n');
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const result = spawnSync(npm, ['ci', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], { stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
  writeFileSync(stampFile, lockHash);
}
