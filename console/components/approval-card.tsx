import type { ComponentChild } from 'preact';
import { useState } from 'preact/hooks';

import { type Approval, type ApprovalRequested, DECIDE, decideApproval } from '../api/approvals';
import { useAccess } from '../auth/access';
import { href } from '../router';
import { Field } from './fields';
import { ImpactSummary } from './impact-check';
import { ProblemNotice } from './problem';
import { when } from './result-cells';

export const KIND_LABEL: Record<Approval['kind'], string> = {
  publish: 'Publish',
  status: 'Status move',
  exception: 'New exception',
  rollout: 'Dated rollout',
  'role-binding': 'Role binding',
  'resource-type': 'Resource type',
  'model-config': 'Model configuration',
};

const entityHref = (entity: NonNullable<Approval['entity']>) => href(`/${entity.kind === 'policy' ? 'policies' : 'metrics'}/${entity.id}`);

/** What is asked, in a few words: the version and the move, or the exception (its fields are the changes). */
function asked(approval: Approval): string {
  const { version, from, to } = approval.request as { version?: number; from?: string; to?: string };
  if (approval.kind === 'publish') return `publish version ${version} (${from} → enabled)`;
  if (approval.kind === 'status') return `move version ${version} from ${from} to ${to}`;
  if (approval.kind === 'rollout') return `enable version ${version} (${from} → enabled) at ${String((approval.request as { enableAt?: string }).enableAt)}`;
  if (approval.kind === 'role-binding' || approval.kind === 'resource-type')
    return `${String(approval.request.action)} the ${approval.target.kind} ${approval.target.name}`;
  if (approval.kind === 'model-config') return `replace the ${approval.target.name}`;
  return 'a new exception';
}

/** A value of a change: text as it is (a script keeps its lines), anything else as JSON. */
function value(shown: unknown): ComponentChild {
  if (shown === null || shown === undefined) return <span class="none">—</span>;
  const text = typeof shown === 'string' ? shown : JSON.stringify(shown, null, 1);
  return text.includes('\n') ? <pre>{text}</pre> : text;
}

/** What an approval made: the version and its status, the exception, the evaluation report of a publish. */
function Outcome({ approval }: { approval: Approval }) {
  const { outcome } = approval;
  if (approval.status === 'rejected') return <>nothing changed</>;
  if (!outcome) return <>—</>;
  const { version, status, exceptionId, evaluationReportId } = outcome as Partial<Record<string, string | number | null>>;
  return (
    <>
      {version !== undefined ? `version ${version}${status ? ` is ${status}` : approval.kind === 'publish' ? ' is enabled' : ''}` : null}
      {exceptionId ? `exception ${exceptionId}` : null}
      {evaluationReportId ? (
        <>
          {' '}
          (<a href={href(`/reports/${evaluationReportId}`)}>its evaluation report</a>)
        </>
      ) : null}
    </>
  );
}

/** Approve or reject, with a comment: for callers with approvals:decide, never on their own request (the API refuses it: 403). */
function Decision({ approval, onDecided }: { approval: Approval; onDecided: (decided: Approval) => void }) {
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const field = `comment-${approval.id}`;
  const decide = async (event: Event, decision: 'approve' | 'reject') => {
    const form = (event.currentTarget as HTMLButtonElement).form as HTMLFormElement;
    setBusy(true);
    setError(undefined);
    try {
      onDecided(await decideApproval(approval.id, decision, String(new FormData(form).get(field) ?? '').trim()));
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="decision" aria-label="Decision" onSubmit={(event) => event.preventDefault()}>
      <Field name={field} label="Comment (optional)" error={error} errorPath="comment">
        <textarea id={field} name={field} rows={2} />
      </Field>
      <div class="actions">
        <button type="button" disabled={busy} onClick={(event) => decide(event, 'approve')}>
          Approve
        </button>
        <button type="button" class="secondary" disabled={busy} onClick={(event) => decide(event, 'reject')}>
          Reject
        </button>
      </div>
      <ProblemNotice error={error} />
    </form>
  );
}

/**
 * One request for approval: the entity, what is asked, who asked and when, its expiry, the field
 * changes and the patch; pending: the decision (for those who may decide, not on their own);
 * decided: who, when, the comment and what it made.
 */
export function ApprovalCard({ approval, onDecided }: { approval: Approval; onDecided: (decided: Approval) => void }) {
  const { me, can } = useAccess();
  const { entity, target, diff } = approval;
  const heading = `approval-${approval.id}`;
  const own = me?.subject === approval.requestedBy;
  // A request of a policy or metric names it, its resource type and environment; one of the service's settings, what it changes.
  const about: [string, ComponentChild][] = entity
    ? [
        [entity.kind === 'policy' ? 'Policy' : 'Metric', <a href={entityHref(entity)}>{entity.name}</a>],
        ['Asked', asked(approval)],
        ['Resource type', entity.resourceType],
        ['Environment', entity.environment ?? 'every environment'],
      ]
    : [
        [KIND_LABEL[approval.kind], target.name],
        ['Asked', asked(approval)],
      ];
  const facts: [string, ComponentChild][] = [
    ...about,
    ['Requested by', approval.requestedBy],
    ['Requested', when(approval.requestedAt)],
    [approval.status === 'pending' ? 'Expires' : 'Expiry', when(approval.expiresAt)],
  ];
  if (diff.impactReportId) facts.push([`Impact of version ${diff.requestedVersion}`, <ImpactSummary id={diff.impactReportId} />]);
  if (approval.decidedBy) facts.push(['Decided by', approval.decidedBy]);
  if (approval.decidedAt) facts.push(['Decided', when(approval.decidedAt)]);
  if (approval.status === 'approved' || approval.status === 'rejected') {
    facts.push(['Comment', approval.comment ?? '—']);
    facts.push(['Outcome', <Outcome approval={approval} />]);
  }
  return (
    <article class="approval" aria-labelledby={heading}>
      <h2 id={heading}>
        <a href={href(`/approvals/${approval.id}`)}>
          {KIND_LABEL[approval.kind]}: {target.name}
        </a>{' '}
        <span class={`status status-${approval.status}`}>{approval.status}</span>
      </h2>
      <dl class="facts">
        {facts.map(([term, shown]) => (
          <div key={term}>
            <dt>{term}</dt>
            <dd>{shown}</dd>
          </div>
        ))}
      </dl>
      {diff.changes.length > 0 ? (
        <div class="table-scroll" tabIndex={0} role="region" aria-label={`Changes of ${target.name}`}>
          <table class="changes">
            <caption class="visually-hidden">The fields that change</caption>
            <thead>
              <tr>
                <th scope="col">Field</th>
                <th scope="col">Before</th>
                <th scope="col">After</th>
              </tr>
            </thead>
            <tbody>
              {diff.changes.map((change) => (
                <tr key={change.field}>
                  <td>{change.field}</td>
                  <td>{value(change.before)}</td>
                  <td>{value(change.after)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <p class="empty">No field changes.</p>
      )}
      {diff.patch ? (
        <pre class="code patch" aria-label={`Patch of ${target.name}`}>
          {diff.patch}
        </pre>
      ) : null}
      {approval.status !== 'pending' ? null : own ? (
        <p class="hint">Your request: another person decides it.</p>
      ) : can(DECIDE) ? (
        <Decision approval={approval} onDecided={onDecided} />
      ) : null}
    </article>
  );
}

/** The answer of a change that became a request (202): nothing changed yet; where the request is. */
export function SentForApproval({ requested }: { requested: ApprovalRequested }) {
  return (
    <p class="notice" role="status">
      <strong>Sent for approval</strong>: {asked(requested)} waits for another person's decision; nothing changed yet.{' '}
      <a href={href(`/approvals/${requested.approvalId}`)}>See the request</a>
    </p>
  );
}
