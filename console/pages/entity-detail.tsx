import './entity-pages.css';

import { useState } from 'preact/hooks';

import { allowedMoves, type EntityStatus } from '#lib/governance/policies/lifecycle';

import { type ApprovalRequested, sentForApproval } from '../api/approvals';
import { ENTITY_PERMISSIONS, type EntityVersion, latestResults, listVersions, type MetricVersion, moveEntity, publishEntity } from '../api/entities';
import type { EvaluationResult } from '../api/evaluation-reports';
import { type EntityCollection, listEnvironments } from '../api/governance';
import { readRollout } from '../api/impact';
import { useAccess, Withheld } from '../auth/access';
import { SentForApproval } from '../components/approval-card';
import { type Column, DataTable } from '../components/data-table';
import { EntityTest } from '../components/entity-test';
import { ImpactCheck } from '../components/impact-check';
import { Pager } from '../components/pager';
import { ProblemNotice } from '../components/problem';
import { MetricValue, ReportProgress } from '../components/report-progress';
import { when } from '../components/result-cells';
import { href, navigate, type RouteProps } from '../router';
import { useApi } from '../use-api';

const CHOICES_PAGE = { limit: 100, offset: 0 };
const RESULTS_PAGE = 25;

/** The button of each move of the lifecycle (lib/governance/policies/lifecycle.ts). */
const MOVE_LABEL: Record<EntityStatus, string> = { draft: 'Back to draft', grace: 'Start grace period', enabled: 'Enable', disabled: 'Disable' };

/** One version, readable whole: its fields and its script or rule. */
function VersionDetails({ version, open }: { version: EntityVersion; open: boolean }) {
  const rows: [string, string][] = [
    ['Resource type', version.resourceType],
    ['Environment', version.environment ?? 'every environment'],
    ['Severity', version.severity],
    ['Trigger', version.trigger],
    ['Timing', version.timing + (version.cronExpression ? ` (${version.cronExpression})` : '')],
    ['Engine', version.engine ?? 'none'],
    ['Evaluator', version.evaluator ?? '—'],
    ['Tags', version.tags.join(', ') || '—'],
  ];
  const thresholds = 'thresholds' in version ? (version as MetricVersion).thresholds : undefined;
  if (thresholds)
    rows.push(['Thresholds', thresholds.map((threshold) => `${threshold.label}: ${threshold.min ?? '−∞'} to ${threshold.max ?? '∞'}`).join('; ') || '—']);
  return (
    <details class="version" open={open}>
      <summary>
        Version {version.version} · <span class={`status status-${version.status}`}>{version.status}</span> · {when(version.updatedAt)} by {version.updatedBy}
      </summary>
      {version.description ? <p>{version.description}</p> : null}
      <dl class="facts">
        {rows.map(([label, value]) => (
          <div key={label}>
            <dt>{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      {version.cueScript ? (
        <pre class="code" aria-label={`CUE script of version ${version.version}`}>
          {version.cueScript}
        </pre>
      ) : null}
      {version.remoteEngineUrl ? <p>Remote engine: {version.remoteEngineUrl}</p> : null}
      {version.llmRule ? <pre class="code">{version.llmRule}</pre> : null}
    </details>
  );
}

const metricColumns: Column<EvaluationResult>[] = [
  { header: 'Resource', cell: (result) => result.resource.displayName ?? result.resource.id },
  { header: 'Environment', cell: (result) => result.resource.environment },
  { header: 'Value', cell: (result) => <MetricValue result={result.result} /> },
  { header: 'Outcome', cell: (result) => <span class={`outcome outcome-${result.outcome}`}>{result.outcome}</span> },
  { header: 'When', cell: (result) => when(result.creationTime) },
];

/** A metric's latest value for each resource, with its threshold's colour, paged by the API. */
function MetricResults({ collection, id, offset }: { collection: EntityCollection; id: string; offset: number }) {
  const results = useApi((signal) => latestResults(id, { limit: RESULTS_PAGE, offset }, signal), [id, offset]);
  return (
    <section aria-labelledby="metric-values">
      <h2 id="metric-values">Latest values</h2>
      <ProblemNotice error={results.error} />
      {results.data && !results.error ? (
        <>
          <DataTable
            caption="Latest values"
            columns={metricColumns}
            rows={results.data.data}
            rowKey={(result) => `${result.resource.environment}/${result.resource.id}`}
            empty="No results yet."
          />
          <Pager pagination={results.data.meta.pagination} hrefOf={(next) => href(`/${collection}/${id}`, { resultsOffset: next || undefined })} />
        </>
      ) : null}
    </section>
  );
}

/**
 * A policy or metric: its versions, newest first, the lifecycle's moves, publish, a test on the
 * perimeter and its report; the actions only for callers whose roles give them, and under
 * four-eyes a publish or move says it was sent for approval.
 */
export function EntityDetailPage({ collection, params, query }: RouteProps & { collection: EntityCollection }) {
  const id = params.id;
  const [changed, setChanged] = useState(0);
  const [actionError, setActionError] = useState<unknown>();
  const [requested, setRequested] = useState<ApprovalRequested>();
  const { can } = useAccess();
  const [canEdit, canPublish] = [can(ENTITY_PERMISSIONS.edit), can(ENTITY_PERMISSIONS.publish)];
  const versions = useApi((signal) => listVersions(collection, id, signal), [collection, id, changed]);
  const rollout = useApi((signal) => readRollout(collection, id, signal), [collection, id, changed]);
  const environments = useApi((signal) => listEnvironments(CHOICES_PAGE, signal), []);
  const reportId = query.get('report') ?? undefined;
  const showReport = (report: string, title: string) => navigate(`/${collection}/${id}`, { report, reportTitle: title });

  if (!versions.data) return <ProblemNotice error={versions.error} />;
  const [newest] = versions.data;
  const act = async (action: () => Promise<unknown>) => {
    setActionError(undefined);
    setRequested(undefined);
    try {
      const answer = await action();
      // Four-eyes: nothing changed, a request waits for another person's approval.
      if (answer && typeof answer === 'object' && sentForApproval(answer)) setRequested(answer);
      setChanged((count) => count + 1);
    } catch (error) {
      setActionError(error);
    }
  };
  const publish = () =>
    act(async () => {
      const published = await publishEntity(collection, id);
      if (sentForApproval(published)) return published;
      if (published.evaluationReportId) showReport(published.evaluationReportId, 'Publish evaluation');
      return published;
    });

  return (
    <>
      <div class="entity-heading">
        <h2>{newest.name}</h2>
        <p>
          Version {newest.version}, <span class={`status status-${newest.status}`}>{newest.status}</span>
        </p>
        {rollout.data?.status === 'scheduled' ? (
          <p class="rollout">
            Version {rollout.data.version} becomes enabled on {when(rollout.data.enableAt)} (dated rollout)
          </p>
        ) : null}
      </div>
      {canEdit || canPublish ? (
        <div class="actions" role="group" aria-label="Lifecycle">
          {canEdit ? (
            <a class="button" href={href(`/${collection}/${id}/edit`)}>
              {newest.status === 'draft' ? 'Edit' : 'Edit (new version)'}
            </a>
          ) : null}
          {canPublish
            ? allowedMoves(newest.status).map((status) => (
                <button type="button" key={status} onClick={() => act(() => moveEntity(collection, id, status, newest.version))}>
                  {MOVE_LABEL[status]}
                </button>
              ))
            : null}
          {canPublish ? (
            <button type="button" onClick={publish}>
              Publish
            </button>
          ) : null}
        </div>
      ) : null}
      <Withheld permission={ENTITY_PERMISSIONS.edit}>editing and testing</Withheld>
      <Withheld permission={ENTITY_PERMISSIONS.publish}>publishing and status moves</Withheld>
      {requested ? <SentForApproval requested={requested} /> : null}
      <ProblemNotice error={actionError} />
      {reportId ? <ReportProgress id={reportId} title={query.get('reportTitle') ?? 'Report'} /> : null}
      {canEdit ? (
        <EntityTest
          collection={collection}
          id={id}
          version={newest.version}
          environments={newest.environment ? [newest.environment] : (environments.data?.data.map((environment) => environment.name) ?? [])}
          on="perimeter"
          onReport={(report) => showReport(report, 'Test on the perimeter')}
        />
      ) : null}
      {canEdit && newest.engine ? <ImpactCheck collection={collection} id={id} version={newest.version} /> : null}
      {collection === 'metrics' ? <MetricResults collection={collection} id={id} offset={Number(query.get('resultsOffset') ?? 0) || 0} /> : null}
      <section aria-labelledby="versions">
        <h2 id="versions">Versions</h2>
        {versions.data.map((version, index) => (
          <VersionDetails key={version.version} version={version} open={index === 0} />
        ))}
      </section>
    </>
  );
}
