import { useEffect, useState } from 'preact/hooks';

import { type EvaluationReport, type EvaluationResult, readReport, reportResults } from '../api/evaluation-reports';
import { formatNumber } from '../format';
import { useApi } from '../use-api';
import { type Column, DataTable } from './data-table';
import { ProblemNotice } from './problem';
import { ResourceLink } from './result-cells';

/** How often a running report is read again. */
const POLL_MS = 1000;
const RESULTS_PAGE = 25;

const ended = (report?: EvaluationReport) => report?.status === 'completed' || report?.status === 'failed';

/** A report, read again every POLL_MS until it has ended. */
function usePolledReport(id: string): { report?: EvaluationReport; error?: unknown } {
  const [state, setState] = useState<{ report?: EvaluationReport; error?: unknown }>({});
  useEffect(() => {
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = () =>
      readReport(id, controller.signal).then(
        (report) => {
          if (controller.signal.aborted) return;
          setState({ report });
          if (!ended(report)) timer = setTimeout(poll, POLL_MS);
        },
        (error: unknown) => controller.signal.aborted || setState({ error }),
      );
    setState({});
    void poll();
    return () => {
      controller.abort();
      clearTimeout(timer);
    };
  }, [id]);
  return state;
}

/** The value of a metric's result with its threshold's colour, or nothing for a policy's. */
export function MetricValue({ result }: { result: Pick<EvaluationResult, 'result'>['result'] }) {
  if (result.value === undefined) return null;
  const threshold = result.threshold;
  return (
    <span class="metric-value">
      {threshold ? <span class="swatch" style={{ background: threshold.color }} aria-hidden="true" /> : null}
      {formatNumber(result.value)}
      {threshold ? ` (${threshold.label})` : ''}
    </span>
  );
}

const resultColumns: Column<EvaluationResult>[] = [
  { header: 'Resource', cell: (result) => <ResourceLink resource={result.resource} /> },
  { header: 'Environment', cell: (result) => result.resource.environment },
  { header: 'Outcome', cell: (result) => <span class={`outcome outcome-${result.outcome}`}>{result.outcome}</span> },
  { header: 'Value', cell: (result) => <MetricValue result={result.result} /> },
  {
    header: 'Errors',
    cell: (result) =>
      result.result.errors.length > 0 ? (
        <ul class="errors">
          {result.result.errors.map((message) => (
            <li key={message}>{message}</li>
          ))}
        </ul>
      ) : (
        '—'
      ),
  },
];

/** A report's results, one page of the API at a time (its cursor pages: the cursors of the pages before are kept for Previous). */
function ReportResults({ id, total }: { id: string; total: number }) {
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const after = cursors[cursors.length - 1];
  const page = useApi((signal) => reportResults(id, RESULTS_PAGE, after, signal), [id, after]);
  const first = (cursors.length - 1) * RESULTS_PAGE;
  const next = page.data?.meta.next;
  return (
    <div aria-busy={page.loading}>
      <ProblemNotice error={page.error} />
      {page.data && !page.error ? (
        <>
          <DataTable
            caption="Results"
            columns={resultColumns}
            rows={page.data.data}
            rowKey={(result) => `${result.resource.environment}/${result.resource.id}`}
            empty="No results."
          />
          <nav class="pager" aria-label="Result pages">
            <span aria-live="polite">
              {total === 0 ? 'None' : `${formatNumber(first + 1)}–${formatNumber(first + page.data.data.length)} of ${formatNumber(total)}`}
            </span>
            {cursors.length > 1 ? (
              <button type="button" onClick={() => setCursors(cursors.slice(0, -1))}>
                Previous
              </button>
            ) : null}
            {next ? (
              <button type="button" onClick={() => setCursors([...cursors, next ?? undefined])}>
                Next
              </button>
            ) : null}
          </nav>
        </>
      ) : null}
    </div>
  );
}

/** An evaluation report: its progress while it runs (read again until it ends), then its verdict and results. */
export function ReportProgress({ id, title }: { id: string; title: string }) {
  const { report, error } = usePolledReport(id);
  const total = report?.progress.total ?? 0;
  const done = report?.progress.done ?? 0;
  return (
    <section class="report" aria-labelledby={`report-${id}`}>
      <h2 id={`report-${id}`}>{title}</h2>
      <ProblemNotice error={error} />
      {report ? (
        <>
          <div class="progress">
            <label for={`progress-${id}`}>{ended(report) ? `Report ${report.status}` : `Report ${report.status}…`}</label>
            <progress id={`progress-${id}`} max={Math.max(total, 1)} value={ended(report) ? Math.max(total, 1) : done} />
            <span aria-live="polite">
              {formatNumber(done)} of {formatNumber(total)} resources
            </span>
          </div>
          {report.progress.waiting?.map((wait) => (
            <p class="notice" key={`${wait.environment}/${wait.offset}`}>
              Waiting on {wait.environment} (from {wait.offset}): {wait.reason}, attempt {wait.attempt} of {wait.attempts}
            </p>
          ))}
          {report.error ? (
            <p class="problem" role="alert">
              {report.error}
            </p>
          ) : null}
          {ended(report) ? (
            <>
              <p class={report.passed ? 'verdict verdict-passed' : 'verdict verdict-failed'} role="status">
                {report.passed ? 'Passed' : 'Not passed'}: {formatNumber(report.counts.ok)} ok, {formatNumber(report.counts.waived)} waived,{' '}
                {formatNumber(report.counts.info)} info, {formatNumber(report.counts.warning)} warning, {formatNumber(report.counts.error)} error,{' '}
                {formatNumber(report.counts.failed)} failed
              </p>
              <ReportResults id={id} total={report.counts.total} />
            </>
          ) : null}
        </>
      ) : null}
    </section>
  );
}
