import { entityNames, listLatestResults, type Result } from '../api/results';
import { type Column, DataTable } from '../components/data-table';
import { Pager } from '../components/pager';
import { ProblemNotice } from '../components/problem';
import { MetricValue } from '../components/report-progress';
import { EntityLink, OutcomeBadge, ResultErrors, when } from '../components/result-cells';
import { href, type RouteProps } from '../router';
import { useApi } from '../use-api';

const PAGE_SIZE = 50;

const columns = (names?: Map<string, string>): Column<Result>[] => [
  { header: 'Policy', cell: (result) => <EntityLink result={result} names={names} /> },
  { header: 'Kind', cell: (result) => result.governanceEntityType },
  { header: 'Severity', cell: (result) => result.severity },
  { header: 'Outcome', cell: (result) => <OutcomeBadge outcome={result.outcome} /> },
  { header: 'Value', cell: (result) => <MetricValue result={result.result} /> },
  { header: 'Errors', cell: (result) => <ResultErrors errors={result.result.errors} /> },
  {
    header: 'Details',
    cell: (result) =>
      result.result.details ? (
        <details>
          <summary>Details</summary>
          <pre>{JSON.stringify(result.result.details, null, 2)}</pre>
        </details>
      ) : (
        '—'
      ),
  },
  { header: 'Evaluated', cell: (result) => when(result.creationTime) },
];

/** One resource of an environment: the newest result of each policy and metric, with their errors in full. */
export function ResourcePage({ params, query }: RouteProps) {
  const { environment, id } = params;
  const offset = Number(query.get('offset') ?? 0) || 0;
  const list = useApi((signal) => listLatestResults({ resourceId: id, environment }, { limit: PAGE_SIZE, offset }, signal), [environment, id, offset]);
  const names = useApi((signal) => entityNames(list.data?.data ?? [], signal), [list.data]);
  const first = list.data?.data[0]?.resource;
  const self = `/resources/${encodeURIComponent(environment)}/${encodeURIComponent(id)}`;

  return (
    <>
      <dl class="resource-identity" aria-label="Resource">
        <div>
          <dt>Id</dt>
          <dd>{id}</dd>
        </div>
        <div>
          <dt>Environment</dt>
          <dd>{environment}</dd>
        </div>
        {first ? (
          <>
            <div>
              <dt>Resource type</dt>
              <dd>
                <a href={href('/resources', { resourceType: first.resourceType, environment })}>{first.resourceType}</a>
              </dd>
            </div>
            <div>
              <dt>Name</dt>
              <dd>{first.displayName ?? '—'}</dd>
            </div>
            <div>
              <dt>Version</dt>
              <dd>{first.version ?? '—'}</dd>
            </div>
          </>
        ) : null}
      </dl>
      <ProblemNotice error={list.error} />
      <div aria-busy={list.loading}>
        {list.data && !list.error ? (
          <>
            <DataTable
              caption="Results per policy"
              columns={columns(names.data)}
              rows={list.data.data}
              rowKey={(result) => result.governanceEntityId}
              empty="This resource has no result in this environment."
            />
            <Pager pagination={list.data.meta.pagination} hrefOf={(next) => href(self, { offset: next || undefined })} />
          </>
        ) : null}
      </div>
    </>
  );
}
