import type { ComponentChild } from 'preact';

import { readReport } from '../api/evaluation-reports';
import { ProblemNotice } from '../components/problem';
import { ReportProgress } from '../components/report-progress';
import { when } from '../components/result-cells';
import { type RouteProps } from '../router';
import { useApi } from '../use-api';

/** A report: what started it, then its progress (followed while it runs), verdict and results. */
export function ReportPage({ params }: RouteProps) {
  const { id } = params;
  const report = useApi((signal) => readReport(id, signal), [id]);
  const data = report.data;
  const facts: [string, ComponentChild][] = data
    ? [
        ['Cause', data.cause],
        ['Scope', data.evaluationScope],
        ['Environment', data.environment ?? 'every environment'],
        ['Resource type', data.resourceType],
        ['Created', when(data.createdAt)],
        ['By', data.createdBy],
      ]
    : [];
  return (
    <>
      <ProblemNotice error={report.error} />
      <dl class="resource-identity" aria-label="Report">
        {facts.map(([term, value]) => (
          <div key={term}>
            <dt>{term}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      <ReportProgress id={id} title="Progress" />
    </>
  );
}
