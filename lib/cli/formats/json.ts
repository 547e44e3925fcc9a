import { type CheckRun, countsOf } from '#lib/api/check-results';

/** For scripts: the run as one JSON document (descriptor texts left out). */
export function formatJson(run: CheckRun): string {
  const document = {
    passed: run.passed,
    outcome: run.outcome,
    ...(run.reportId ? { reportId: run.reportId } : {}),
    counts: countsOf(run.results),
    results: run.results.map(({ descriptor, ...result }) => ({ ...result, descriptor: descriptor.file })),
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}
