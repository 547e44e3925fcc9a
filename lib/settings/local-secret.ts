import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

import { runtimeEnvironment } from './environment';

/** Where local runs keep the secrets they generate: beside the embedded database's data. */
const localSecretFile = (name: string) => path.join(runtimeEnvironment().root, '.data', name);

/**
 * A random secret generated once for local development and kept in .data/<name> (mode 600), the
 * same for npm start, serverless-offline and scripts. `onCreate` is told when it is first made.
 */
export async function localSecret(name: string, onCreate: (file: string) => void): Promise<Buffer> {
  const file = localSecretFile(name);
  if (!existsSync(file)) {
    await mkdir(path.dirname(file), { recursive: true });
    const created = await writeFile(file, `${randomBytes(32).toString('base64')}\n`, { flag: 'wx', mode: 0o600 }).then(
      () => true,
      (error) => {
        // Another local process made it first: use theirs.
        if (error.code !== 'EEXIST') throw error;
        return false;
      },
    );
    if (created) {
      await chmod(file, 0o600);
      onCreate(file);
    }
  }
  return Buffer.from((await readFile(file, 'utf8')).trim(), 'base64');
}
