import { type CheckRun, countsOf } from '#lib/api/check-results';
import { locatedErrors } from '#lib/api/located-errors';

// Workflow commands: data escapes %, CR and LF; properties also : and ,.
const escapeData = (text: string) => text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
const escapeProperty = (text: string) => escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');

// A waived result (an active exception, `cgp evaluate`) is shown as a notice: it keeps its errors.
const COMMAND = { waived: 'notice', info: 'notice', warning: 'warning', error: 'error', failed: 'error' } as const;

/** GitHub Actions workflow annotations: one per error, on the descriptor line its path names. */
export function formatGithub(run: CheckRun): string {
  const lines: string[] = [];
  for (const result of run.results) {
    if (result.outcome === 'ok') continue;
    for (const { message, position } of locatedErrors(result)) {
      const title = escapeProperty(`${result.policy.name} (${result.outcome})`);
      const properties = `file=${escapeProperty(result.descriptor.file)},line=${position.line},col=${position.column},title=${title}`;
      lines.push(`::${COMMAND[result.outcome]} ${properties}::${escapeData(message)}`);
    }
  }
  const counts = countsOf(run.results);
  lines.push(`cgp: ${run.passed ? 'passed' : 'failed'}: ${run.results.length} results, ${counts.error + counts.failed} failing`);
  return `${lines.join('\n')}\n`;
}
