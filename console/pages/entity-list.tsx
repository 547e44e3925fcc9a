import { STATUSES } from '#lib/governance/policies/lifecycle';

import { ENTITY_PERMISSIONS } from '../api/entities';
import { type Entity, type EntityCollection, type EntityFilters, listEntities, listEnvironments, listResourceTypes } from '../api/governance';
import { useAccess } from '../auth/access';
import { type Column, DataTable } from '../components/data-table';
import { SelectField, TextField } from '../components/fields';
import { Pager } from '../components/pager';
import { ProblemNotice } from '../components/problem';
import { when } from '../components/result-cells';
import { href, navigate, type RouteProps } from '../router';
import { useApi } from '../use-api';

const PAGE_SIZE = 25;
/** The filter inputs' choices: the first page of environments and resource types (a free text field beside them). */
const CHOICES_PAGE = { limit: 100, offset: 0 };
const FILTERS = ['text', 'status', 'resourceType', 'environment', 'trigger'] as const;
const NEW_LABEL: Record<EntityCollection, string> = { policies: 'New policy', metrics: 'New metric' };

const columns = (collection: EntityCollection): Column<Entity>[] => [
  { header: 'Name', cell: (entity) => <a href={href(`/${collection}/${entity.id}`)}>{entity.name}</a> },
  { header: 'Status', cell: (entity) => <span class={`status status-${entity.status}`}>{entity.status}</span> },
  { header: 'Version', cell: (entity) => entity.version },
  { header: 'Resource type', cell: (entity) => entity.resourceType },
  { header: 'Environment', cell: (entity) => entity.environment ?? 'all' },
  { header: 'Severity', cell: (entity) => entity.severity },
  { header: 'Engine', cell: (entity) => entity.engine ?? '—' },
  { header: 'Trigger', cell: (entity) => entity.trigger },
  { header: 'Updated', cell: (entity) => when(entity.updatedAt) },
];

/** Policies or metrics: the API's filters (in the address), one page of the API at a time; "New" for those who may write one. */
export function EntityListPage({ collection, query }: RouteProps & { collection: EntityCollection }) {
  const filters: EntityFilters = Object.fromEntries(FILTERS.map((name) => [name, query.get(name) ?? undefined]));
  const offset = Number(query.get('offset') ?? 0) || 0;
  const key = `${collection}?${query}`;
  const list = useApi((signal) => listEntities(collection, filters, { limit: PAGE_SIZE, offset }, signal), [key]);
  const environments = useApi((signal) => listEnvironments(CHOICES_PAGE, signal), []);
  const resourceTypes = useApi((signal) => listResourceTypes(CHOICES_PAGE, signal), []);
  const { can } = useAccess();

  const apply = (form: HTMLFormElement) => {
    const values = new FormData(form);
    navigate(`/${collection}`, Object.fromEntries(FILTERS.map((name) => [name, String(values.get(name) ?? '')])));
  };
  const submit = (event: Event) => {
    event.preventDefault();
    apply(event.currentTarget as HTMLFormElement);
  };
  const applyNow = (event: Event) => apply((event.currentTarget as HTMLSelectElement).form as HTMLFormElement);

  return (
    <>
      {can(ENTITY_PERMISSIONS.edit) ? (
        <p class="actions">
          <a class="button" href={href(`/${collection}/new`)}>
            {NEW_LABEL[collection]}
          </a>
        </p>
      ) : null}
      <form class="filters" role="search" aria-label={`Filter ${collection}`} onSubmit={submit} key={key}>
        <TextField name="text" label="Name or description" defaultValue={filters.text ?? ''} error={list.error} errorPath="query.text" />
        <SelectField
          name="status"
          label="Status"
          defaultValue={filters.status ?? ''}
          options={STATUSES}
          anyLabel="any"
          onChange={applyNow}
          error={list.error}
          errorPath="query.status"
        />
        <TextField
          name="resourceType"
          label="Resource type"
          defaultValue={filters.resourceType ?? ''}
          list="resource-type-choices"
          error={list.error}
          errorPath="query.resourceType"
        />
        <TextField
          name="environment"
          label="Environment"
          defaultValue={filters.environment ?? ''}
          list="environment-choices"
          error={list.error}
          errorPath="query.environment"
        />
        <SelectField
          name="trigger"
          label="Trigger"
          defaultValue={filters.trigger ?? ''}
          options={['active', 'passive']}
          anyLabel="any"
          onChange={applyNow}
          error={list.error}
          errorPath="query.trigger"
        />
        <datalist id="resource-type-choices">
          {resourceTypes.data?.data.map((type) => (
            <option key={type.name} value={type.name} />
          ))}
        </datalist>
        <datalist id="environment-choices">
          {environments.data?.data.map((environment) => (
            <option key={environment.name} value={environment.name} />
          ))}
        </datalist>
        <button type="submit">Filter</button>
      </form>
      <ProblemNotice error={list.error} />
      <div aria-busy={list.loading}>
        {list.data && !list.error ? (
          <>
            <DataTable
              caption={collection}
              columns={columns(collection)}
              rows={list.data.data}
              rowKey={(entity) => entity.id}
              empty={`No ${collection} match these filters.`}
            />
            <Pager pagination={list.data.meta.pagination} hrefOf={(next) => href(`/${collection}`, { ...filters, offset: next || undefined })} />
          </>
        ) : null}
      </div>
    </>
  );
}
