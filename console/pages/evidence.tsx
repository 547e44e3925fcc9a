import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';

import { ApiProblem } from '../api/client';
import { downloadPack, type EvidencePack, listEvidence, READ_EVIDENCE, readEvidence, requestEvidence } from '../api/evidence';
import { listEnvironments, listResourceTypes, type PageRequest } from '../api/governance';
import { useAccess, Withheld } from '../auth/access';
import { type Column, DataTable } from '../components/data-table';
import { Field } from '../components/fields';
import { Pager, type Pagination } from '../components/pager';
import { ProblemNotice } from '../components/problem';
import { when } from '../components/result-cells';
import { formatDateTime, formatNumber } from '../format';
import { href, type RouteProps } from '../router';
import { useApi } from '../use-api';

const PAGE_SIZE = 25;
/** How often a pack being built is read again. */
const POLL_MS = 1000;
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
function ExportForm({ onAsked }: { onAsked: (pack: EvidencePack) => void }) {
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

const ended = (pack: EvidencePack) => pack.status === 'completed' || pack.status === 'failed';

/** The pack asked for, read again every POLL_MS until it has ended; `onEnded` is told once it has. */
function usePolledPack(asked: EvidencePack, onEnded: () => void): { pack: EvidencePack; error?: unknown } {
  const [state, setState] = useState<{ pack: EvidencePack; error?: unknown }>({ pack: asked });
  useEffect(() => {
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      try {
        const pack = await readEvidence(asked.evidenceId, controller.signal);
        if (controller.signal.aborted) return;
        setState({ pack });
        if (ended(pack)) onEnded();
        else timer = setTimeout(poll, POLL_MS);
      } catch (error) {
        if (!controller.signal.aborted) setState((previous) => ({ pack: previous.pack, error }));
      }
    };
    timer = setTimeout(poll, POLL_MS);
    return () => {
      controller.abort();
      clearTimeout(timer);
    };
  }, [asked.evidenceId]);
  return state;
}

/** The file a pack's zip is saved as: evidence-<at>.zip, with what file names cannot hold replaced. */
const zipName = (pack: EvidencePack) => `evidence-${pack.at.replace(/[:.]/g, '-')}.zip`;

/** An object URL of the blob while it is shown (revoked after). */
function useObjectUrl(blob?: Blob): string | undefined {
  const [url, setUrl] = useState<string>();
  useEffect(() => {
    if (!blob) return undefined;
    const made = URL.createObjectURL(blob);
    setUrl(made);
    return () => URL.revokeObjectURL(made);
  }, [blob]);
  return url;
}

/** A completed pack's zip: downloaded in parts, then saved by a link to it (an <a download>), clicked once; the link stays to save it again. */
function SavedZip({ pack }: { pack: EvidencePack }) {
  const zip = useApi((signal) => downloadPack(pack.evidenceId, signal), [pack.evidenceId]);
  const url = useObjectUrl(zip.data);
  const link = useRef<HTMLAnchorElement>(null);
  useEffect(() => link.current?.click(), [url]);
  if (zip.error) return <ProblemNotice error={zip.error} />;
  if (!url) return <span aria-busy="true">Downloading…</span>;
  return (
    <a ref={link} href={url} download={zipName(pack)}>
      {zipName(pack)}
    </a>
  );
}

/** Download, of a completed pack in the list: its zip once pressed. */
function DownloadCell({ pack }: { pack: EvidencePack }) {
  const [asked, setAsked] = useState(false);
  if (asked) return <SavedZip pack={pack} />;
  return (
    <button type="button" class="secondary" aria-label={`Download the pack of ${formatDateTime(pack.at)}`} onClick={() => setAsked(true)}>
      Download
    </button>
  );
}

const scopeOf = (names: readonly string[] | null, every: string) => (names === null ? every : names.join(', '));

/** What a completed pack holds, in a line. */
function summaryOf(summary: EvidencePack['summary']): string {
  if (!summary) return '—';
  const { policies, verdicts, resources, failingResources, exceptions, approvals, auditRecords } = summary;
  return [
    `${formatNumber(policies)} policies`,
    `${formatNumber(verdicts)} verdicts`,
    `${formatNumber(resources)} resources (${formatNumber(failingResources)} failing)`,
    `${formatNumber(exceptions)} exceptions`,
    `${formatNumber(approvals)} approvals`,
    `${formatNumber(auditRecords)} audit records`,
  ].join(', ');
}

const UNITS = ['bytes', 'KiB', 'MiB', 'GiB'];

/** A size in bytes in the largest unit it has at least one of (12.3 KiB). */
function sizeOf(bytes: number | null): string {
  if (bytes === null) return '—';
  let [value, unit] = [bytes, 0];
  for (; value >= 1024 && unit < UNITS.length - 1; unit++) value /= 1024;
  return `${formatNumber(Math.round(value * 10) / 10)} ${UNITS[unit]}`;
}

/** The pack asked for on this page: its status read every second, then its counts and its zip saved, or why it failed. */
function ExportStatus({ asked, onEnded }: { asked: EvidencePack; onEnded: () => void }) {
  const { pack, error } = usePolledPack(asked, onEnded);
  return (
    <section class="evidence-asked" aria-labelledby="evidence-asked">
      <h2 id="evidence-asked">The pack of {when(pack.at)}</h2>
      <p role="status">
        Status: <span class="status">{pack.status}</span>
        {ended(pack) ? '' : '…'}
      </p>
      <ProblemNotice error={error} />
      {pack.status === 'failed' ? (
        <p class="problem" role="alert">
          The pack could not be built: {pack.error ?? 'the platform gave no reason'}
        </p>
      ) : null}
      {pack.status === 'completed' ? (
        <>
          <p>
            {summaryOf(pack.summary)}; {sizeOf(pack.size)}, SHA-256 <code>{pack.sha256}</code>
          </p>
          <p>
            Saved as <SavedZip pack={pack} />
          </p>
        </>
      ) : null}
    </section>
  );
}

const columns: Column<EvidencePack>[] = [
  { header: 'Moment', cell: (pack) => when(pack.at) },
  { header: 'Scope', cell: (pack) => `${scopeOf(pack.environments, 'every environment')}; ${scopeOf(pack.resourceTypes, 'every resource type')}` },
  { header: 'Status', cell: (pack) => (pack.status === 'failed' ? `failed: ${pack.error ?? 'no reason given'}` : pack.status) },
  {
    header: 'Requested',
    cell: (pack) => (
      <>
        {pack.requestedBy}, {when(pack.requestedAt)}
      </>
    ),
  },
  { header: 'Summary', cell: (pack) => summaryOf(pack.summary) },
  { header: 'Size', cell: (pack) => sizeOf(pack.size) },
  { header: 'Zip', cell: (pack) => (pack.status === 'completed' ? <DownloadCell pack={pack} /> : '—') },
];

/** The packs asked for, newest first, a page of the API at a time; read again when `changed` moves. */
function Packs({ offset, changed }: { offset: number; changed: number }) {
  const list = useApi((signal) => listEvidence({ limit: PAGE_SIZE, offset }, signal), [offset, changed]);
  return (
    <section aria-labelledby="evidence-packs">
      <h2 id="evidence-packs">Packs asked for</h2>
      <ProblemNotice error={list.error} />
      <div aria-busy={list.loading}>
        {list.data && !list.error ? (
          <>
            <DataTable caption="Evidence packs" columns={columns} rows={list.data.data} rowKey={(pack) => pack.evidenceId} empty="No pack asked for yet." />
            <Pager pagination={list.data.meta.pagination} hrefOf={(next) => href('/evidence', { offset: next || undefined })} />
          </>
        ) : null}
      </div>
    </section>
  );
}

/** The form, the pack asked for and the list, for callers who hold audit:read. */
function Evidence({ offset }: { offset: number }) {
  const [asked, setAsked] = useState<EvidencePack>();
  const [changed, setChanged] = useState(0);
  const refresh = () => setChanged((count) => count + 1);
  return (
    <>
      <p class="hint">
        A signed zip of what was enforced at a past moment: the policies in force, their verdicts, the exceptions and approvals, and the audit records that
        prove them (<code>npx cgp evidence verify</code> checks it offline).
      </p>
      <ExportForm
        onAsked={(pack) => {
          setAsked(pack);
          refresh();
        }}
      />
      {asked ? <ExportStatus key={asked.evidenceId} asked={asked} onEnded={refresh} /> : null}
      <Packs offset={offset} changed={changed} />
    </>
  );
}

/** Evidence (`#/evidence`): evidence packs for auditors (docs/evidence.md): export one of a moment and scope, and the packs asked for. */
export function EvidencePage({ query }: RouteProps) {
  const { can } = useAccess();
  return (
    <>
      <Withheld permission={READ_EVIDENCE}>evidence packs</Withheld>
      {can(READ_EVIDENCE) ? <Evidence offset={Number(query.get('offset') ?? 0) || 0} /> : null}
    </>
  );
}
