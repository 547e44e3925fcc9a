import './entity-pages.css';

import { useState } from 'preact/hooks';

import { ApiProblem } from '../api/client';
import { createEntity, ENTITY_PERMISSIONS, type EntityInput, type EntityVersion, type MetricVersion, readEntity, updateEntity } from '../api/entities';
import { type EntityCollection, listEnvironments, listResourceTypes } from '../api/governance';
import { useAccess, Withheld } from '../auth/access';
import { EntityTest } from '../components/entity-test';
import { Field, SelectField, TextAreaField, TextField } from '../components/fields';
import { ProblemNotice } from '../components/problem';
import { CueEditor } from '../editor/cue-editor';
import { navigate, type RouteProps } from '../router';
import { useApi } from '../use-api';

const CHOICES_PAGE = { limit: 100, offset: 0 };
const NOUN: Record<EntityCollection, string> = { policies: 'policy', metrics: 'metric' };

/** The text fields of the form, sent as they are, left out when empty (the API's default: null or its value). */
const TEXTS = [
  'name',
  'description',
  'resourceType',
  'environment',
  'interactionType',
  'severity',
  'engine',
  'cueScript',
  'remoteEngineUrl',
  'llmRule',
  'trigger',
  'timing',
  'cronExpression',
  'strategy',
] as const;

const MULTILINE = new Set(['description', 'cueScript', 'llmRule']);

/** The form's values as the API's input; a thresholds text that is not JSON is the form's own field error. */
function inputOf(form: HTMLFormElement, collection: EntityCollection): EntityInput {
  const values = new FormData(form);
  const text = (name: string) => String(values.get(name) ?? '').trim();
  // The texts of several lines are sent as written (a script's last newline is its own); the others trimmed.
  const sent = (name: string) => (MULTILINE.has(name) ? String(values.get(name)) : text(name));
  const input: EntityInput = Object.fromEntries(TEXTS.filter((name) => text(name) !== '').map((name) => [name, sent(name)]));
  input.tags = text('tags')
    .split(',')
    .map((tag) => tag.trim())
    .filter(Boolean);
  input.requireConcrete = values.get('requireConcrete') === 'on';
  if (collection === 'metrics' && text('thresholds') !== '') {
    try {
      input.thresholds = JSON.parse(text('thresholds'));
    } catch (error) {
      throw new ApiProblem(400, 'Invalid request', 'The request has 1 invalid field: thresholds', [
        { path: 'thresholds', message: `thresholds must be a JSON array: ${(error as Error).message}` },
      ]);
    }
  }
  return input;
}

const EMPTY: Partial<EntityVersion> = { severity: 'error', trigger: 'active', timing: 'deployment', strategy: 'default', engine: 'cue', requireConcrete: true };

/** The form of a policy or metric: every field with its errors beside it, the CUE script in CodeMirror with its compile errors at their line. */
function EntityForm({
  collection,
  entity,
  onSaved,
  canSave,
}: {
  collection: EntityCollection;
  entity?: EntityVersion;
  onSaved: (saved: EntityVersion, status: string) => void;
  /** Whether the caller may save (policies:edit): without it the form is shown to read, with no Save. */
  canSave: boolean;
}) {
  const [error, setError] = useState<unknown>();
  const [saving, setSaving] = useState(false);
  const environments = useApi((signal) => listEnvironments(CHOICES_PAGE, signal), []);
  const resourceTypes = useApi((signal) => listResourceTypes(CHOICES_PAGE, signal), []);
  const shown = entity ?? EMPTY;
  const value = (name: keyof EntityVersion) => (shown[name] === null || shown[name] === undefined ? '' : String(shown[name]));

  const submit = async (event: Event) => {
    event.preventDefault();
    setSaving(true);
    setError(undefined);
    try {
      const input = inputOf(event.currentTarget as HTMLFormElement, collection);
      const saved = entity ? await updateEntity(collection, entity.id, input) : await createEntity(collection, input);
      onSaved(saved, !entity ? 'Created' : saved.version === entity.version ? 'Saved' : 'Saved as the next version');
    } catch (failure) {
      setError(failure);
    } finally {
      setSaving(false);
    }
  };

  const common = { error, defaultValue: '' };
  return (
    <form class="entity-form" onSubmit={submit} aria-label={`${NOUN[collection]} editor`}>
      <ProblemNotice error={error} />
      <TextField {...common} name="name" label="Name" defaultValue={value('name')} errorPath="name" required />
      <TextAreaField {...common} name="description" label="Description" rows={2} defaultValue={value('description')} errorPath="description" />
      <TextField
        {...common}
        name="resourceType"
        label="Resource type"
        defaultValue={value('resourceType')}
        list="editor-resource-types"
        errorPath="resourceType"
      />
      <TextField
        {...common}
        name="environment"
        label="Environment (empty: every environment)"
        defaultValue={value('environment')}
        list="editor-environments"
        errorPath="environment"
      />
      <SelectField {...common} name="severity" label="Severity" defaultValue={value('severity')} options={['info', 'warning', 'error']} errorPath="severity" />
      <SelectField {...common} name="trigger" label="Trigger" defaultValue={value('trigger')} options={['active', 'passive']} errorPath="trigger" />
      <SelectField {...common} name="timing" label="Timing" defaultValue={value('timing')} options={['deployment', 'runtime']} errorPath="timing" />
      <TextField {...common} name="cronExpression" label="Cron expression (runtime)" defaultValue={value('cronExpression')} errorPath="cronExpression" />
      <SelectField
        {...common}
        name="strategy"
        label="Strategy"
        defaultValue={value('strategy')}
        options={['default', 'previous_vs_current']}
        errorPath="strategy"
      />
      <SelectField
        {...common}
        name="engine"
        label="Engine"
        defaultValue={value('engine')}
        options={collection === 'metrics' ? ['cue', 'remote'] : ['cue', 'remote', 'llm']}
        anyLabel="none (passive)"
        errorPath="engine"
      />
      <Field name="cueScript" label="CUE script" error={error} errorPath="cueScript">
        <CueEditor name="cueScript" label="CUE script" defaultValue={value('cueScript')} error={error} />
      </Field>
      <TextField
        {...common}
        name="remoteEngineUrl"
        label="Remote engine URL (engine remote)"
        defaultValue={value('remoteEngineUrl')}
        errorPath="remoteEngineUrl"
      />
      <TextAreaField {...common} name="llmRule" label="Rule in natural language (engine llm)" rows={3} defaultValue={value('llmRule')} errorPath="llmRule" />
      <TextField {...common} name="interactionType" label="Interaction type" defaultValue={value('interactionType')} errorPath="interactionType" />
      <TextField {...common} name="tags" label="Tags (comma separated)" defaultValue={(shown.tags ?? []).join(', ')} errorPath="tags" />
      {collection === 'metrics' ? (
        <TextAreaField
          {...common}
          name="thresholds"
          label="Thresholds (JSON)"
          rows={4}
          placeholder='[{ "label": "good", "color": "#1a7f37", "min": 0.8 }]'
          defaultValue={entity && 'thresholds' in entity ? JSON.stringify((entity as MetricVersion).thresholds, null, 2) : ''}
          errorPath="thresholds"
        />
      ) : null}
      <div class="field checkbox">
        <input id="requireConcrete" name="requireConcrete" type="checkbox" defaultChecked={shown.requireConcrete ?? true} />
        <label for="requireConcrete">Require concrete values (CUE)</label>
      </div>
      <datalist id="editor-resource-types">
        {resourceTypes.data?.data.map((type) => (
          <option key={type.name} value={type.name} />
        ))}
      </datalist>
      <datalist id="editor-environments">
        {environments.data?.data.map((environment) => (
          <option key={environment.name} value={environment.name} />
        ))}
      </datalist>
      {canSave ? (
        <button type="submit" disabled={saving}>
          Save
        </button>
      ) : null}
    </form>
  );
}

/**
 * A new policy or metric (`#/policies/new`), or the next version of one (`#/policies/<id>/edit`:
 * a draft is edited in place, another status gets a new draft version); once saved, "Test" on a
 * pasted descriptor.
 */
export function EntityEditorPage({ collection, params, query }: RouteProps & { collection: EntityCollection }) {
  const id = params.id;
  const entity = useApi((signal) => (id ? readEntity(collection, id, signal) : Promise.resolve(undefined)), [collection, id, query.get('saved')]);
  const environments = useApi((signal) => listEnvironments(CHOICES_PAGE, signal), []);
  const saved = query.get('saved');
  const canEdit = useAccess().can(ENTITY_PERMISSIONS.edit);
  if (id && !entity.data) return <ProblemNotice error={entity.error} />;
  const current = entity.data;
  const onSaved = (version: EntityVersion, status: string) =>
    navigate(`/${collection}/${version.id}/edit`, { saved: `${status} (version ${version.version}, ${version.status})` }, { replace: !id });
  return (
    <>
      {current ? (
        <p>
          <a href={`#/${collection}/${current.id}`}>
            {current.name}, version {current.version} ({current.status})
          </a>
        </p>
      ) : null}
      {saved ? (
        <p class="notice" role="status">
          {saved}
        </p>
      ) : null}
      <Withheld permission={ENTITY_PERMISSIONS.edit}>saving and testing</Withheld>
      <EntityForm key={`${current?.id}:${current?.version}:${saved}`} collection={collection} entity={current} onSaved={onSaved} canSave={canEdit} />
      {current && canEdit ? (
        <EntityTest
          key={`${current.id}:${current.version}`}
          collection={collection}
          id={current.id}
          version={current.version}
          environments={current.environment ? [current.environment] : (environments.data?.data.map((environment) => environment.name) ?? [])}
          on="descriptor"
        />
      ) : null}
    </>
  );
}
