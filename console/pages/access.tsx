import './access-pages.css';

import { useState } from 'preact/hooks';

import { ROLES } from '#lib/authorization/roles';

import { createRoleBinding, deleteRoleBinding, listRoleBindings, MANAGE_BINDINGS, type Me, type RoleBinding } from '../api/access';
import { type ApprovalRequested, sentForApproval } from '../api/approvals';
import { ApiProblem } from '../api/client';
import { useAccess, Withheld } from '../auth/access';
import { SentForApproval } from '../components/approval-card';
import { type Column, DataTable } from '../components/data-table';
import { TextField } from '../components/fields';
import { FieldErrors, ProblemNotice } from '../components/problem';
import { when } from '../components/result-cells';
import { useApi } from '../use-api';

/** Names typed as comma-separated text. */
const namesOf = (text: FormDataEntryValue | null) =>
  String(text ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);

const listed = (names: readonly string[] | null, none: string) => (names === null ? none : names.join(', ') || '—');

const scopeColumns: Column<Me['scopes'][number]>[] = [
  { header: 'Roles', cell: (scope) => scope.roles.join(', ') },
  { header: 'Resource types', cell: (scope) => listed(scope.resourceTypes, 'every one') },
  { header: 'Environments', cell: (scope) => listed(scope.environments, 'every one') },
  { header: 'Source', cell: (scope) => scope.source },
];

/** The caller as /me describes them: subject, how they signed in, groups, roles in each scope, four-eyes. */
function You({ me }: { me: Me }) {
  return (
    <section aria-labelledby="you">
      <h2 id="you">You</h2>
      <dl class="facts">
        <div>
          <dt>Subject</dt>
          <dd>{me.subject}</dd>
        </div>
        <div>
          <dt>Signed in with</dt>
          <dd>{me.method}</dd>
        </div>
        <div>
          <dt>Groups</dt>
          <dd>{me.groups.join(', ') || '—'}</dd>
        </div>
        <div>
          <dt>Four-eyes</dt>
          <dd>{me.fourEyes ? 'on: publishing, status moves and new exceptions need another person’s approval' : 'off'}</dd>
        </div>
      </dl>
      <DataTable caption="Your roles" columns={scopeColumns} rows={me.scopes} rowKey={(scope) => scope.source} empty="You hold no role." />
      <p class="hint">Permissions: {me.permissions.join(', ') || 'none'}</p>
    </section>
  );
}

/** The form of a new binding: subjects and groups as comma-separated text, roles as checkboxes, optional limits. */
function NewBinding({ onCreated }: { onCreated: (answer: RoleBinding | ApprovalRequested) => void }) {
  const [error, setError] = useState<unknown>();
  const [saving, setSaving] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    const values = new FormData(event.currentTarget as HTMLFormElement);
    const [resourceTypes, environments] = [namesOf(values.get('binding-resource-types')), namesOf(values.get('binding-environments'))];
    setSaving(true);
    setError(undefined);
    try {
      onCreated(
        await createRoleBinding({
          subjects: namesOf(values.get('binding-subjects')),
          groups: namesOf(values.get('binding-groups')),
          roles: values.getAll('binding-roles').map(String) as RoleBinding['roles'],
          // Empty: every resource type, every environment (left out, as the API wants it).
          ...(resourceTypes.length > 0 ? { resourceTypes } : {}),
          ...(environments.length > 0 ? { environments } : {}),
        }),
      );
    } catch (failure) {
      setError(failure);
    } finally {
      setSaving(false);
    }
  };
  const rolesInvalid = error instanceof ApiProblem && error.errorsOf('roles').length > 0;
  return (
    <form class="binding-form" aria-labelledby="new-binding" onSubmit={submit}>
      <h2 id="new-binding">Add a role binding</h2>
      <ProblemNotice error={error} />
      <TextField name="binding-subjects" label="Subjects (comma separated)" defaultValue="" error={error} errorPath="subjects" />
      <TextField name="binding-groups" label="Groups (comma separated)" defaultValue="" error={error} errorPath="groups" />
      <fieldset class="roles" aria-invalid={rolesInvalid || undefined} aria-describedby={rolesInvalid ? 'binding-roles-error' : undefined}>
        <legend>Roles</legend>
        {ROLES.map((role) => (
          <label key={role}>
            <input type="checkbox" name="binding-roles" value={role} /> {role}
          </label>
        ))}
        <FieldErrors id="binding-roles-error" error={error} path="roles" />
      </fieldset>
      <TextField
        name="binding-resource-types"
        label="Resource types (comma separated; empty: every one)"
        defaultValue=""
        error={error}
        errorPath="resourceTypes"
      />
      <TextField name="binding-environments" label="Environments (comma separated; empty: every one)" defaultValue="" error={error} errorPath="environments" />
      <button type="submit" disabled={saving}>
        Add the binding
      </button>
    </form>
  );
}

/** The bindings (application.conf's first, read-only here; then the API's, newest first), a form to add one, delete for the API's. */
function Bindings() {
  const [changed, setChanged] = useState(0);
  const [formKey, setFormKey] = useState(0);
  const [deleteError, setDeleteError] = useState<unknown>();
  // Under four-eyes a change of the bindings is a request: the last one sent, until the next change.
  const [requested, setRequested] = useState<ApprovalRequested>();
  const bindings = useApi((signal) => listRoleBindings(signal), [changed]);
  const remove = async (binding: RoleBinding) => {
    setDeleteError(undefined);
    try {
      const answer = await deleteRoleBinding(binding.id);
      setRequested(answer && typeof answer === 'object' && sentForApproval(answer) ? answer : undefined);
      setChanged((count) => count + 1);
    } catch (failure) {
      setDeleteError(failure);
    }
  };
  const columns: Column<RoleBinding>[] = [
    { header: 'Subjects', cell: (binding) => binding.subjects.join(', ') || '—' },
    { header: 'Groups', cell: (binding) => binding.groups.join(', ') || '—' },
    { header: 'Roles', cell: (binding) => binding.roles.join(', ') },
    { header: 'Resource types', cell: (binding) => listed(binding.resourceTypes, 'every one') },
    { header: 'Environments', cell: (binding) => listed(binding.environments, 'every one') },
    { header: 'Source', cell: (binding) => binding.source },
    {
      header: 'Created',
      cell: (binding) =>
        binding.createdAt ? (
          <>
            {when(binding.createdAt)} by {binding.createdBy}
          </>
        ) : (
          '—'
        ),
    },
    {
      header: 'Delete',
      cell: (binding) =>
        binding.source === 'api' ? (
          <button
            type="button"
            class="secondary"
            aria-label={`Delete the binding of ${[...binding.subjects, ...binding.groups].join(', ')}`}
            onClick={() => remove(binding)}
          >
            Delete
          </button>
        ) : (
          <span class="hint">in application.conf</span>
        ),
    },
  ];
  return (
    <section aria-labelledby="bindings">
      <h2 id="bindings">Role bindings</h2>
      <ProblemNotice error={bindings.error ?? deleteError} />
      {requested ? <SentForApproval requested={requested} /> : null}
      <div aria-busy={bindings.loading}>
        {bindings.data ? (
          <DataTable caption="Role bindings" columns={columns} rows={bindings.data} rowKey={(binding) => binding.id} empty="No role bindings." />
        ) : null}
      </div>
      <NewBinding
        key={formKey}
        onCreated={(answer) => {
          setRequested(sentForApproval(answer) ? answer : undefined);
          setFormKey((count) => count + 1);
          setChanged((count) => count + 1);
        }}
      />
    </section>
  );
}

/** Access (`#/access`): who the caller is and their roles; for callers with role-bindings:manage, the role bindings. */
export function AccessPage() {
  const { me, can } = useAccess();
  return (
    <>
      {me ? <You me={me} /> : null}
      <Withheld permission={MANAGE_BINDINGS}>the role bindings</Withheld>
      {can(MANAGE_BINDINGS) ? <Bindings /> : null}
    </>
  );
}
