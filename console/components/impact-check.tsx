import { useEffect, useState } from 'preact/hooks';

import type { EntityCollection } from '../api/governance';
import { type ImpactReport, type ImpactResource, newlyFailing, readImpact, startImpact } from '../api/impact';
import { href } from '../router';
import { type Column, DataTable } from './data-table';
import { ProblemNotice } from './problem';

/** How often a running impact report is read again. */
const POLL_MS = 1000;
/** The newly failing resources shown (the report counts them all). */
const SHOWN = 100;

const CHANGES = [
  ['newlyFailing', 'Newly failing'],
  ['stillFailing', 'Still failing'],
  ['newlyPassing', 'Newly passing'],
  ['stillPassing', 'Still passing'],
  ['notEvaluated', 'Never judged'],
] as const;

type Counts = NonNullable<ImpactReport['counts']>;

/** A bar of an environment's resources by change, each part as wide as its share. */
function ImpactBar({ counts, label }: { counts: Counts; label: string }) {
  const total = CHANGES.reduce((sum, [change]) => sum + counts[change], 0);
  return (
    <div class="impact-bar" role="img" aria-label={`${label}: ${CHANGES.map(([change, name]) => `${counts[change]} ${name.toLowerCase()}`).join(', ')}`}>
      {CHANGES.map(([change]) =>
        counts[change] > 0 ? <span key={change} class={`impact-${change}`} style={{ width: `${(100 * counts[change]) / total}%` }} /> : null,
      )}
    </div>
  );
}

const resourceColumns: Column<ImpactResource>[] = [
  { header: 'Resource', cell: (row) => row.resourceId },
  { header: 'Environment', cell: (row) => row.environment },
  { header: 'Owner', cell: (row) => row.owner ?? '' },
  { header: 'Errors', cell: (row) => row.errors.join('; ') },
];

type ThresholdMove = ImpactReport['byThreshold'][number];

const thresholdColumns: Column<ThresholdMove>[] = [
  { header: 'From', cell: (row) => row.baselineThreshold ?? '(none)' },
  { header: 'To', cell: (row) => row.candidateThreshold ?? '(none)' },
  { header: 'Resources', cell: (row) => String(row.count) },
];

/** An impact report, read again every POLL_MS until it has ended; with its newly failing resources when `withResources`. */
function usePolledImpact(id: string, withResources: boolean) {
  const [state, setState] = useState<{ report?: ImpactReport; failing?: ImpactResource[]; error?: unknown }>({});
  useEffect(() => {
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      try {
        const report = await readImpact(id, controller.signal);
        if (controller.signal.aborted) return;
        if (report.status === 'completed' && withResources) setState({ report, failing: await newlyFailing(id, SHOWN, controller.signal) });
        else setState({ report });
        if (report.status === 'pending' || report.status === 'running') timer = setTimeout(poll, POLL_MS);
      } catch (error) {
        if (!controller.signal.aborted) setState({ error });
      }
    };
    void poll();
    return () => {
      controller.abort();
      clearTimeout(timer);
    };
  }, [id, withResources]);
  return state;
}

/** The counts of an impact report in a line: an approver's figures on a request that would enable a version. */
export function ImpactSummary({ id }: { id: string }) {
  const { report, error } = usePolledImpact(id, false);
  if (error) return <ProblemNotice error={error} />;
  if (!report?.counts) return <span>{report?.status === 'failed' ? `the impact run failed: ${report.error}` : 'checking the impact…'}</span>;
  const counts = report.counts;
  return (
    <a href={href(`/${report.kind === 'policy' ? 'policies' : 'metrics'}/${report.policyId}`)}>
      {CHANGES.map(([change, name]) => `${counts[change]} ${name.toLowerCase()}`).join(', ')}
    </a>
  );
}

/** The impact report, read again every POLL_MS until it has ended, then its newly failing resources. */
function ImpactResult({ id }: { id: string }) {
  const { report, failing, error } = usePolledImpact(id, true);
  if (error) return <ProblemNotice error={error} />;
  if (!report || !report.counts) return <p role="status">{report?.status === 'failed' ? `The impact run failed: ${report.error}` : 'Checking the impact…'}</p>;
  return (
    <div class="impact-result">
      <p role="status">
        Version {report.candidateVersion} against {report.baselineVersion === null ? 'no live version' : `live version ${report.baselineVersion}`}
      </p>
      <dl class="impact-counts">
        {CHANGES.map(([change, name]) => (
          <div key={change}>
            <dt>{name}</dt>
            <dd>{report.counts?.[change]}</dd>
          </div>
        ))}
      </dl>
      {report.byEnvironment.map(({ environment, ...counts }) => (
        <div class="impact-environment" key={environment}>
          <span>{environment}</span>
          <ImpactBar counts={counts} label={environment} />
        </div>
      ))}
      {report.byThreshold.length > 0 ? (
        <DataTable
          caption="Thresholds (the live version's to this version's)"
          columns={thresholdColumns}
          rows={report.byThreshold}
          rowKey={(row) => `${row.baselineThreshold}/${row.candidateThreshold}`}
          empty=""
        />
      ) : null}
      {failing ? (
        <DataTable
          caption="Newly failing resources"
          columns={resourceColumns}
          rows={failing}
          rowKey={(row) => `${row.environment}/${row.resourceId}`}
          empty="No resource newly fails."
        />
      ) : null}
    </div>
  );
}

/** "Check impact": what the version would change on the resources already deployed, before it goes live. */
export function ImpactCheck({ collection, id, version }: { collection: EntityCollection; id: string; version: number }) {
  const [impactId, setImpactId] = useState<string>();
  const [error, setError] = useState<unknown>();
  const [running, setRunning] = useState(false);
  const check = async () => {
    setRunning(true);
    setError(undefined);
    try {
      setImpactId(await startImpact(collection, id, version));
    } catch (failure) {
      setError(failure);
    } finally {
      setRunning(false);
    }
  };
  return (
    <section class="impact-check" aria-labelledby="impact-heading">
      <h2 id="impact-heading">Impact of version {version}</h2>
      <button type="button" onClick={check} disabled={running}>
        Check impact
      </button>
      <ProblemNotice error={error} />
      {impactId ? <ImpactResult key={impactId} id={impactId} /> : null}
    </section>
  );
}
