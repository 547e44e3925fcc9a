import { OUTCOMES } from '#lib/governance/evaluation/outcome';

import { type ComplianceFilters, type ComplianceSummary, complianceSummary, complianceTrend, type ResourceCounts } from '../api/compliance';
import { listEnvironments, listResourceTypes } from '../api/governance';
import { type Column, DataTable } from '../components/data-table';
import { SelectField, TextField } from '../components/fields';
import { ProblemNotice } from '../components/problem';
import { when } from '../components/result-cells';
import { TrendChart } from '../components/trend-chart';
import { formatNumber, formatPercent } from '../format';
import { href, navigate, type RouteProps } from '../router';
import { useApi } from '../use-api';

/** The filter inputs' choices: the first page of environments and resource types (any other name can be typed). */
const CHOICES_PAGE = { limit: 100, offset: 0 };
const TREND_DAYS = ['7', '30', '90', '365'];
const DEFAULT_DAYS = '30';

type Breakdown = ComplianceSummary['byEnvironmentAndResourceType'][number];
type FailingPolicy = ComplianceSummary['topFailingPolicies'][number];

const OUTCOME_LABELS: Record<(typeof OUTCOMES)[number], string> = {
  ok: 'ok (compliant)',
  waived: 'waived (an exception covers it)',
  info: 'info',
  warning: 'warning',
  error: 'error',
  failed: 'failed (could not be evaluated)',
};

const percent = (part: number, whole: number) => (whole === 0 ? '' : ` (${formatPercent(part / whole)})`);

/** Resources passing and failing, at a glance. */
function Figures({ resources }: { resources: ResourceCounts }) {
  return (
    <dl class="figures" aria-label="Resources">
      <div>
        <dt>Resources</dt>
        <dd>{formatNumber(resources.total)}</dd>
      </div>
      <div class="good">
        <dt>Passing</dt>
        <dd>
          {formatNumber(resources.passing)}
          <small>{percent(resources.passing, resources.total)}</small>
        </dd>
      </div>
      <div class="bad">
        <dt>Failing</dt>
        <dd>
          {formatNumber(resources.failing)}
          <small>{percent(resources.failing, resources.total)}</small>
        </dd>
      </div>
    </dl>
  );
}

const breakdownColumns = (filters: ComplianceFilters): Column<Breakdown>[] => [
  { header: 'Environment', cell: (row) => <a href={href('/overview', { ...filters, environment: row.environment })}>{row.environment}</a> },
  { header: 'Resource type', cell: (row) => <a href={href('/overview', { ...filters, resourceType: row.resourceType })}>{row.resourceType}</a> },
  { header: 'Resources', cell: (row) => formatNumber(row.resources.total) },
  { header: 'Passing', cell: (row) => formatNumber(row.resources.passing) },
  { header: 'Failing', cell: (row) => formatNumber(row.resources.failing) },
];

/** A policy's page, or a metric's. */
const entityHref = (entity: { kind: 'policy' | 'metric'; id: string }) => href(`/${entity.kind === 'policy' ? 'policies' : 'metrics'}/${entity.id}`);

const failingColumns: Column<FailingPolicy>[] = [
  { header: 'Policy', cell: (entity) => <a href={entityHref(entity)}>{entity.name}</a> },
  { header: 'Kind', cell: (entity) => entity.kind },
  { header: 'Severity', cell: (entity) => entity.severity },
  { header: 'Status', cell: (entity) => <span class={`status status-${entity.status}`}>{entity.status}</span> },
  { header: 'Resource type', cell: (entity) => entity.resourceType },
  { header: 'Failing (error, failed)', cell: (entity) => formatNumber(entity.outcomes.error + entity.outcomes.failed) },
  { header: 'Findings (info, warning)', cell: (entity) => formatNumber(entity.outcomes.info + entity.outcomes.warning) },
  { header: 'Results', cell: (entity) => formatNumber(entity.outcomes.total) },
];

/**
 * Compliance at a glance (the default page): the summary and the trend of the API, for the
 * environment and resource type of the address (and one policy's results, from its links).
 */
export function OverviewPage({ query }: RouteProps) {
  const filters: ComplianceFilters = {
    environment: query.get('environment') ?? undefined,
    resourceType: query.get('resourceType') ?? undefined,
    policyId: query.get('policyId') ?? undefined,
  };
  const days = query.get('days') ?? DEFAULT_DAYS;
  const key = String(query);
  const summary = useApi((signal) => complianceSummary(filters, signal), [key]);
  const trend = useApi((signal) => complianceTrend(filters, Number(days), signal), [key]);
  const environments = useApi((signal) => listEnvironments(CHOICES_PAGE, signal), []);
  const resourceTypes = useApi((signal) => listResourceTypes(CHOICES_PAGE, signal), []);

  const apply = (form: HTMLFormElement) => {
    const values = new FormData(form);
    const value = (name: string) => String(values.get(name) ?? '');
    navigate('/overview', { environment: value('environment'), resourceType: value('resourceType'), policyId: filters.policyId, days: value('days') });
  };
  const submit = (event: Event) => {
    event.preventDefault();
    apply(event.currentTarget as HTMLFormElement);
  };
  const applyNow = (event: Event) => apply((event.currentTarget as HTMLSelectElement).form as HTMLFormElement);
  const data = summary.data;

  return (
    <>
      <form class="filters" role="search" aria-label="Filter the overview" onSubmit={submit} key={key}>
        <TextField
          name="environment"
          label="Environment"
          defaultValue={filters.environment ?? ''}
          list="overview-environment-choices"
          error={summary.error}
          errorPath="query.environment"
        />
        <TextField
          name="resourceType"
          label="Resource type"
          defaultValue={filters.resourceType ?? ''}
          list="overview-resource-type-choices"
          error={summary.error}
          errorPath="query.resourceType"
        />
        <SelectField
          name="days"
          label="Days of the trend"
          defaultValue={days}
          options={TREND_DAYS}
          onChange={applyNow}
          error={trend.error}
          errorPath="query.days"
        />
        <datalist id="overview-environment-choices">
          {environments.data?.data.map((environment) => (
            <option key={environment.name} value={environment.name} />
          ))}
        </datalist>
        <datalist id="overview-resource-type-choices">
          {resourceTypes.data?.data.map((type) => (
            <option key={type.name} value={type.name} />
          ))}
        </datalist>
        <button type="submit">Show</button>
      </form>
      {filters.policyId ? (
        <p class="notice" role="status">
          The results of one policy only ({data?.topFailingPolicies.find((entity) => entity.id === filters.policyId)?.name ?? filters.policyId}): each resource
          passes or fails by its result. <a href={href('/overview', { ...filters, policyId: undefined })}>All policies</a>
        </p>
      ) : null}
      <ProblemNotice error={summary.error} />
      <div aria-busy={summary.loading}>
        {data && !summary.error ? (
          <>
            <Figures resources={data.resources} />
            <p class="hint">
              A resource fails when one of its policies' newest results is error or failed (the deploy gate's rule). Computed at {when(data.computedAt)}.
            </p>
            <section aria-labelledby="outcomes-heading">
              <h2 id="outcomes-heading">Results by outcome</h2>
              <DataTable
                caption="Results by outcome"
                columns={[
                  { header: 'Outcome', cell: (outcome) => <span class={`outcome outcome-${outcome}`}>{OUTCOME_LABELS[outcome]}</span> },
                  { header: 'Results', cell: (outcome) => formatNumber(data.outcomes[outcome]) },
                ]}
                rows={[...OUTCOMES].reverse()}
                rowKey={(outcome) => outcome}
                empty=""
              />
            </section>
            <section aria-labelledby="failing-heading">
              <h2 id="failing-heading">Policies that fail most</h2>
              <DataTable
                caption="Policies that fail most"
                columns={failingColumns}
                rows={data.topFailingPolicies}
                rowKey={(entity) => entity.id}
                empty="No policy has a finding."
              />
            </section>
            <section aria-labelledby="breakdown-heading">
              <h2 id="breakdown-heading">Per environment and resource type</h2>
              <DataTable
                caption="Per environment and resource type"
                columns={breakdownColumns(filters)}
                rows={data.byEnvironmentAndResourceType}
                rowKey={(row) => `${row.environment}/${row.resourceType}`}
                empty="No resource has a result yet."
              />
            </section>
          </>
        ) : null}
      </div>
      <section aria-labelledby="trend-heading">
        <h2 id="trend-heading">Compliance over time</h2>
        <ProblemNotice error={trend.error} />
        {trend.data && !trend.error ? <TrendChart trend={trend.data} /> : null}
      </section>
    </>
  );
}
