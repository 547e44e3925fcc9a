// The export form of the Evidence page (pages/evidence.tsx): the moment and the scope of a pack, and Export.
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';

import { ApiProblem } from '../api/client';
import { type EvidencePack, requestEvidence } from '../api/evidence';
import { listEnvironments, listResourceTypes, type PageRequest } from '../api/governance';
import { useApi } from '../use-api';
import { Field } from './fields';
import type { Pagination } from './pager';
import { ProblemNotice } from './problem';

const NAMES_PAGE = 100;

const pad = (value: number) => String(value).padStart(2, '0');

/** A moment as a date-time input holds it: the browser's local time, to the second (2026-09-30T23:59:59). */
const localInput = (date: Date) =>
  `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;

/** A date-time input's value (local time) as the API takes it: ISO 8601 with the browser's offset then (2026-09-30T23:59:59+02:00). */
function withOffset(value: string): string {
  const date = new Date(value);
  const minutes = -date.getTimezoneOffset();
  return `${localInput(date)}${minutes < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(minutes) / 60))}:${pad(Math.abs(minutes) % 60)}`;
}

/** Every name a list endpoint holds, a page of 100 after the other: a name the scope's choices leave out could not be chosen. */
async function everyName(
  list: (page: PageRequest, signal: AbortSignal) => Promise<{ data: { name: string }[]; meta: { pagination: Pagination } }>,
  signal: AbortSignal,
): Promise<string[]> {
  const names: string[] = [];
  for (let offset = 0; ; offset += NAMES_PAGE) {
    const page = await list({ limit: NAMES_PAGE, offset }, signal);
    names.push(...page.data.map((item) => item.name));
    if (page.data.length === 0 || offset + NAMES_PAGE >= page.meta.pagination.total) return names;
  }
}

/** The API's messages about a field of the body or its items (`resourceTypes`, `resourceTypes.0`). */
const messagesOf = (error: unknown, path: string) =>
  error instanceof ApiProblem ? error.errors.filter((item) => item.path === path || item.path.startsWith(`${path}.`)).map((item) => item.message) : [];

/** A labelled control of the export form (its `name` is its id) with the API's messages about `path` beside it. */
function ExportField({ name, label, path, error, children }: { name: string; label: string; path: string; error: unknown; children: ComponentChildren }) {
  const messages = messagesOf(error, path);
  return (
    <Field name={name} label={label}>
      {children}
      {messages.length > 0 ? (
        <span class="field-error" id={`${name}-error`}>
          {messages.join('; ')}
        </span>
      ) : null}
    </Field>
  );
}

/** The control's marks when the API named its field: invalid, described by the messages. */
const invalidMarks = (name: string, error: unknown, path: string) =>
  messagesOf(error, path).length > 0 ? { 'aria-invalid': true, 'aria-describedby': `${name}-error` } : {};

/** A choice of several names (none chosen: every one). */
function NamesField({ name, label, path, names, error }: { name: string; label: string; path: string; names: readonly string[]; error: unknown }) {
  return (
    <ExportField name={name} label={label} path={path} error={error}>
      <select id={name} name={name} multiple size={Math.min(Math.max(names.length, 2), 6)} {...invalidMarks(name, error, path)}>
        {names.map((item) => (
          <option key={item} value={item}>
            {item}
          </option>
        ))}
      </select>
    </ExportField>
  );
}

/** The moment (default: now, in local time), the environments and resource types to limit the pack to, and Export (POST /evidence). */
export function ExportForm({ onAsked }: { onAsked: (pack: EvidencePack) => void }) {
  const [error, setError] = useState<unknown>();
  const [sending, setSending] = useState(false);
  const environments = useApi((signal) => everyName(listEnvironments, signal), []);
  const resourceTypes = useApi((signal) => everyName(listResourceTypes, signal), []);
  const submit = async (event: Event) => {
    event.preventDefault();
    const values = new FormData(event.currentTarget as HTMLFormElement);
    const at = String(values.get('evidence-at') ?? '');
    const chosen = { environments: values.getAll('evidence-environments').map(String), resourceTypes: values.getAll('evidence-resource-types').map(String) };
    setSending(true);
    setError(undefined);
    try {
      onAsked(
        await requestEvidence({
          // Empty: now; none chosen: every one (left out, as the API wants it).
          ...(at ? { at: withOffset(at) } : {}),
          ...(chosen.environments.length > 0 ? { environments: chosen.environments } : {}),
          ...(chosen.resourceTypes.length > 0 ? { resourceTypes: chosen.resourceTypes } : {}),
        }),
      );
    } catch (failure) {
      setError(failure);
    } finally {
      setSending(false);
    }
  };
  return (
    <>
      <form class="filters" aria-label="Export an evidence pack" onSubmit={submit}>
        <ExportField name="evidence-at" label="Moment (your local time; empty: now)" path="at" error={error}>
          <input
            id="evidence-at"
            name="evidence-at"
            type="datetime-local"
            step={1}
            defaultValue={localInput(new Date())}
            {...invalidMarks('evidence-at', error, 'at')}
          />
        </ExportField>
        <NamesField
          name="evidence-environments"
          label="Environments (none chosen: every one)"
          path="environments"
          names={environments.data ?? []}
          error={error}
        />
        <NamesField
          name="evidence-resource-types"
          label="Resource types (none chosen: every one)"
          path="resourceTypes"
          names={resourceTypes.data ?? []}
          error={error}
        />
        <button type="submit" disabled={sending}>
          Export
        </button>
      </form>
      <ProblemNotice error={error ?? environments.error ?? resourceTypes.error} />
    </>
  );
}
