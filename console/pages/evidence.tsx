import { useState } from 'preact/hooks';

import { type EvidencePack, listEvidence, READ_EVIDENCE } from '../api/evidence';
import { useAccess, Withheld } from '../auth/access';
import { type Column, DataTable } from '../components/data-table';
import { ExportForm } from '../components/evidence-export-form';
import { DownloadCell, ExportStatus, sizeOf, summaryOf } from '../components/evidence-pack-status';
import { Pager } from '../components/pager';
import { ProblemNotice } from '../components/problem';
import { when } from '../components/result-cells';
import { href, type RouteProps } from '../router';
import { useApi } from '../use-api';

const PAGE_SIZE = 25;

const scopeOf = (names: readonly string[] | null, every: string) => (names === null ? every : names.join(', '));

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
