import { type CheckRun, countsOf } from '#lib/api/check-results';

const cell = (text: string, width: number) => (text.length > width ? `${text.slice(0, width - 1)}…` : text.padEnd(width));

/** For a person at a terminal: one line per result, its errors indented below, then the counts. */
export function formatTable(run: CheckRun): string {
  const policyWidth = Math.min(40, Math.max(6, ...run.results.map((result) => result.policy.name.length)));
  const descriptorWidth = Math.min(50, Math.max(10, ...run.results.map((result) => result.descriptor.file.length)));
  const lines = [`${cell('OUTCOME', 8)} ${cell('POLICY', policyWidth)} ${cell('DESCRIPTOR', descriptorWidth)} DETAIL`];
  for (const result of run.results) {
    const detail = result.value === undefined ? '' : `value ${result.value}${result.threshold ? ` (${result.threshold.label})` : ''}`;
    lines.push(`${cell(result.outcome, 8)} ${cell(result.policy.name, policyWidth)} ${cell(result.descriptor.file, descriptorWidth)} ${detail}`.trimEnd());
    if (result.outcome !== 'ok') for (const error of result.errors) lines.push(`    ${error.replace(/\n\s*/g, ' ')}`);
  }
  const counts = countsOf(run.results);
  const summary = Object.entries(counts)
    .filter(([, count]) => count > 0)
    .map(([outcome, count]) => `${count} ${outcome}`)
    .join(', ');
  const report = run.reportId ? ` (report ${run.reportId})` : '';
  lines.push('', `${run.passed ? 'PASSED' : 'FAILED'}: ${run.results.length} results${summary ? `: ${summary}` : ''}${report}`);
  return `${lines.join('\n')}\n`;
}
