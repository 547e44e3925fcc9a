import type { CheckRun } from '#lib/api/check-results';

import { formatGithub } from './github';
import { formatJson } from './json';
import { formatJunit } from './junit';
import { formatSarif } from './sarif';
import { formatTable } from './table';

export const FORMATS = ['table', 'json', 'junit', 'sarif', 'github'] as const;
export type Format = (typeof FORMATS)[number];

/** `table` when standard output is a terminal, `json` when it is a pipe or a file (docs/cli.md). */
export const defaultFormat = (stdout: NodeJS.WriteStream = process.stdout): Format => (stdout.isTTY ? 'table' : 'json');

export function formatRun(run: CheckRun, format: Format, version: string): string {
  if (format === 'json') return formatJson(run);
  if (format === 'junit') return formatJunit(run);
  if (format === 'sarif') return formatSarif(run, version);
  if (format === 'github') return formatGithub(run);
  return formatTable(run);
}
