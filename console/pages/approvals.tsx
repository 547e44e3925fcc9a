import './entity-pages.css';
import './access-pages.css';

import { useState } from 'preact/hooks';

import type { Approval } from '../api/approvals';
import { APPROVAL_KINDS, APPROVAL_STATUSES, type ApprovalFilters, DECIDE, listApprovals, readApproval } from '../api/approvals';
import { Withheld } from '../auth/access';
import { ApprovalCard, KIND_LABEL } from '../components/approval-card';
import { SelectField } from '../components/fields';
import { Pager } from '../components/pager';
import { ProblemNotice } from '../components/problem';
import { href, navigate, type RouteProps } from '../router';
import { useApi } from '../use-api';

const PAGE_SIZE = 25;
/** The status filter's "any": the address says so (no status in it is the default, pending). */
const ANY = 'any';

/** What a decision did, said once it is made: the request leaves the pending list. */
function Decided({ approval }: { approval: Approval }) {
  const decision = approval.status === 'approved' ? 'Approved' : 'Rejected';
  const kind = KIND_LABEL[approval.kind].toLowerCase();
  return (
    <p class="notice" role="status">
      {decision}: <a href={href(`/approvals/${approval.id}`)}>{kind}</a> of {approval.target.name}.
    </p>
  );
}

/**
 * Requests for approval (four-eyes), newest first: pending ones unless the address asks for
 * another status (`status=approved|rejected|expired|any`) or a kind; a page of the API at a time.
 */
export function ApprovalsPage({ query }: RouteProps) {
  const status = query.get('status') ?? 'pending';
  const kind = query.get('kind') ?? '';
  const offset = Number(query.get('offset') ?? 0) || 0;
  const filters = { status: status === ANY ? undefined : status, kind: kind || undefined } as ApprovalFilters;
  const [decided, setDecided] = useState<Approval>();
  const list = useApi((signal) => listApprovals(filters, { limit: PAGE_SIZE, offset }, signal), [status, kind, offset, decided]);
  const key = `${status}:${kind}`;
  const apply = (event: Event) => {
    const values = new FormData((event.currentTarget as HTMLSelectElement).form as HTMLFormElement);
    const chosen = String(values.get('status'));
    navigate('/approvals', { status: chosen === 'pending' ? undefined : chosen, kind: String(values.get('kind') ?? '') });
  };
  return (
    <>
      <form class="filters" role="search" aria-label="Filter requests" key={key} onSubmit={(event) => event.preventDefault()}>
        <SelectField
          name="status"
          label="Status"
          defaultValue={status}
          options={[...APPROVAL_STATUSES, ANY]}
          onChange={apply}
          error={list.error}
          errorPath="query.status"
        />
        <SelectField
          name="kind"
          label="Kind"
          defaultValue={kind}
          options={APPROVAL_KINDS}
          anyLabel="any"
          onChange={apply}
          error={list.error}
          errorPath="query.kind"
        />
      </form>
      <Withheld permission={DECIDE}>approving and rejecting</Withheld>
      {decided ? <Decided approval={decided} /> : null}
      <ProblemNotice error={list.error} />
      <div aria-busy={list.loading}>
        {list.data && !list.error ? (
          <>
            {list.data.data.length === 0 ? <p class="empty">No {status === ANY ? '' : `${status} `}requests.</p> : null}
            {list.data.data.map((approval) => (
              <ApprovalCard key={approval.id} approval={approval} onDecided={setDecided} />
            ))}
            <Pager
              pagination={list.data.meta.pagination}
              hrefOf={(next) => href('/approvals', { status: query.get('status') ?? undefined, kind, offset: next || undefined })}
            />
          </>
        ) : null}
      </div>
    </>
  );
}

/** One request (`#/approvals/<id>`), the link a "Sent for approval" note and the list give. */
export function ApprovalPage({ params }: RouteProps) {
  const [decided, setDecided] = useState<Approval>();
  const approval = useApi((signal) => readApproval(params.id, signal), [params.id, decided]);
  return (
    <>
      <p>
        <a href={href('/approvals')}>All pending requests</a>
      </p>
      {decided ? <Decided approval={decided} /> : null}
      <ProblemNotice error={approval.error} />
      {approval.data ? <ApprovalCard approval={approval.data} onDecided={setDecided} /> : null}
    </>
  );
}
