import { MetricUnit, recordMetric } from '#lib/observability/metrics';

import type { ReportRow } from './report-repository';

/** A report that ended: how long it took from its creation, and whether it failed (docs/operations.md: ReportDuration, ReportsFailed). */
export function recordReportEnd(report: Pick<ReportRow, 'createdAt' | 'completedAt' | 'status'>): void {
  recordMetric('ReportDuration', MetricUnit.Milliseconds, (report.completedAt ?? new Date()).getTime() - report.createdAt.getTime());
  recordMetric('ReportsFailed', MetricUnit.Count, report.status === 'failed' ? 1 : 0);
}
