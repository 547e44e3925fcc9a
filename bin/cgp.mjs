#!/usr/bin/env node
// The `cgp` command: runs lib/cli/main.ts through tsx (a dependency), so it needs no build step.
// The engines read this package's files (config/application.conf unless CGP_CONFIG_FILE names
// another, the CUE worker), whatever the working folder, and log nothing unless LOG_LEVEL asks (their lines would mix with the output on stdout).
import { fileURLToPath } from 'node:url';

import { register } from 'tsx/esm/api';

process.env.CGP_PACKAGE_ROOT = fileURLToPath(new URL('..', import.meta.url));
process.env.LOG_LEVEL ||= 'silent';
register();
const { main } = await import('../lib/cli/main.ts');
await main(process.argv.slice(2));
// The CUE worker threads would keep the process alive: the command is done.
process.exit(process.exitCode ?? 0);
