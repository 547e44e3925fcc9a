import { OUTCOMES } from '#lib/governance/evaluation/outcome';

import { listEnvironments, listResourceTypes } from '../api/governance';
import { entityNames, listLatestResults, type Result, type ResultFilters } from '../api/results';
import { type Column, DataTable } from '../components/data-table';
import { SelectField, TextField } from '../components/fields';
import { Pager } from '../components/pager';
import { ProblemNotice } from '../components/problem';
import { EntityLink, OutcomeBadge, ResourceLink, when } from '../components/result-cells';
import { href, navigate, type RouteProps } from '../router';
import { useApi } from '../use-api';

const PAGE_SIZE = 25;
/** The filter inputs' choices: the first page of environments and resource types (any other name can be typed). */
const CHOICES_PAGE = { limit: 100, offset: 0 };
const FILTERS = ['resourceId', 'environment', 'resourceType', 'outcome'] as const;

const columns = (names?: Map<string, string>): Column<Result>[] => [
  { header: 'Resource', cell: (result) => <ResourceLink resource={result.resource} /> },
  { header: 'Environment', cell: (result) => result.resource.environment },
  { header: 'Resource type', cell: (result) => result.resource.resourceType },
  { header: 'Policy', cell: (result) => <EntityLink result={result} names={names} /> },
  { header: 'Outcome', cell: (result) => <OutcomeBadge outcome={result.outcome} /> },
  { header: 'Evaluated', cell: (result) => when(result.creationTime) },
];

/** The newest result of every resource and policy (GET /results?latest=true), filtered, one page of the API at a time. */
export function ResourcesPage({ query }: RouteProps) {
  const filters: ResultFilters = Object.fromEntries(FILTERS.map((name) => [name, query.get(name) ?? undefined]));
  const offset = Number(query.get('offset') ?? 0) || 0;
  const key = String(query);
  const list = useApi((signal) => listLatestResults(filters, { limit: PAGE_SIZE, offset }, signal), [key]);
  const names = useApi((signal) => entityNames(list.data?.data ?? [], signal), [list.data]);
  const environments = useApi((signal) => listEnvironments(CHOICES_PAGE, signal), []);
  const resourceTypes = useApi((signal) => listResourceTypes(CHOICES_PAGE, signal), []);

  const apply = (form: HTMLFormElement) => {
    const values = new FormData(form);
    navigate('/resources', Object.fromEntries(FILTERS.map((name) => [name, String(values.get(name) ?? '')])));
  };
  const submit = (event: Event) => {
    event.preventDefault();
    apply(event.currentTarget as HTMLFormElement);
  };
  const applyNow = (event: Event) => apply((event.currentTarget as HTMLSelectElement).form as HTMLFormElement);

  return (
    <>
      <form class="filters" role="search" aria-label="Filter resources" onSubmit={submit} key={key}>
        <TextField name="resourceId" label="Resource id" defaultValue={filters.resourceId ?? ''} error={list.error} errorPath="query.resourceId" />
        <TextField
          name="environment"
          label="Environment"
          defaultValue={filters.environment ?? ''}
          list="resources-environment-choices"
          error={list.error}
          errorPath="query.environment"
        />
        <TextField
          name="resourceType"
          label="Resource type"
          defaultValue={filters.resourceType ?? ''}
          list="resources-resource-type-choices"
          error={list.error}
          errorPath="query.resourceType"
        />
        <SelectField
          name="outcome"
          label="Outcome"
          defaultValue={filters.outcome ?? ''}
          options={OUTCOMES}
          anyLabel="any"
          onChange={applyNow}
          error={list.error}
          errorPath="query.outcome"
        />
        <datalist id="resources-environment-choices">
          {environments.data?.data.map((environment) => (
            <option key={environment.name} value={environment.name} />
          ))}
        </datalist>
        <datalist id="resources-resource-type-choices">
          {resourceTypes.data?.data.map((type) => (
            <option key={type.name} value={type.name} />
          ))}
        </datalist>
        <button type="submit">Filter</button>
      </form>
      <p class="hint">The newest result of each resource for each policy and metric; a resource's link shows all of them.</p>
      <ProblemNotice error={list.error} />
      <div aria-busy={list.loading}>
        {list.data && !list.error ? (
          <>
            <DataTable
              caption="Resources"
              columns={columns(names.data)}
              rows={list.data.data}
              rowKey={(result) => `${result.governanceEntityId}/${result.resource.environment}/${result.resource.id}`}
              empty="No result matches these filters."
            />
            <Pager pagination={list.data.meta.pagination} hrefOf={(next) => href('/resources', { ...filters, offset: next || undefined })} />
          </>
        ) : null}
      </div>
    </>
  );
}
