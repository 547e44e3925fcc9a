import type middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';

import type { AuditTrail, HeldRecords } from '#lib/audit/audit-trail';
import type { Transaction } from '#lib/db/transaction';
import { logger } from '#lib/logging/logger';

import type { AuditOutcome, Principal } from '../endpoint';
import type { RequestContextInternal } from './request-context';

type Request = middy.Request<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, Context, RequestContextInternal>;
type Middleware = middy.MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, Context, RequestContextInternal>;

/** Methods that change nothing: not recorded in the audit chain, and nothing written ahead. */
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * How long the records written ahead of a write call wait for its outcome: longer than any
 * function runs (Lambda stops one at 15 minutes). A call that never reports it (the function was
 * killed, the database went away after the change) is recorded as written, outcome unknown.
 */
const HOLD_MS = 16 * 60_000;

const heldOf = (request: Request) => request.internal.auditHeld as HeldRecords | undefined;
const isWriteMethod = (request: Request) => !READS.has(request.event.requestContext?.http?.method?.toUpperCase() ?? '');

/** What every record of a call says, whatever its outcome. */
function callOf(request: Request, principal: Principal | undefined) {
  const { requestId, startedAt } = request.internal;
  return {
    timestamp: new Date(startedAt).toISOString(),
    subject: principal?.subject ?? 'anonymous',
    method: request.event.requestContext?.http?.method,
    path: request.event.rawPath,
    requestId,
  };
}

/**
 * Its outcome: the status, how long it took, and what it created or answered when the answer names
 * it (Location of 201 Created and 202 Accepted; Content-Location, such as an Evaluate's report).
 */
function outcomeOf(request: Request, answer: AuditOutcome = answerOf(request)) {
  return {
    status: answer.status,
    durationMs: Date.now() - request.internal.startedAt,
    ...(typeof answer.location === 'string' ? { location: answer.location } : {}),
  };
}

function answerOf(request: Request): AuditOutcome {
  const location = request.response?.headers?.location ?? request.response?.headers?.['content-location'];
  return { status: request.response?.statusCode, ...(typeof location === 'string' ? { location } : {}) };
}

/** What the handler of a write call in flight may do with its records (HttpRequest.auditIn, recordAhead); the event is the request's identity. */
interface CallRecords {
  readonly writeIn: (tx: Transaction, answer: AuditOutcome) => Promise<void>;
  readonly writeAhead: () => Promise<void>;
}
const callRecords = new WeakMap<APIGatewayProxyEventV2, CallRecords>();

/**
 * Writes the records of the call of `event` with the answer it is about to give, in `tx`, the
 * transaction of its change: they commit with it, and the call's answer does not write them
 * again. Nothing for a read. See HttpRequest.auditIn.
 */
export const auditIn = (event: APIGatewayProxyEventV2) => async (tx: Transaction, answer: AuditOutcome) => callRecords.get(event)?.writeIn(tx, answer);

/** Writes the records of the call of `event` ahead now, unless they are already. See HttpRequest.recordAhead. */
export const recordAhead = (event: APIGatewayProxyEventV2) => async () => callRecords.get(event)?.writeAhead();

/**
 * One audit record per user call: who, what, the outcome and the request id. Write calls (not GET,
 * HEAD, OPTIONS) are appended to the audit chain, naming the operation; every call goes to the
 * platform's audit receiver when `audit.enabled`, through the outbox.
 *
 * `outcome` (first in the chain) records the call once it answered. `ahead` (after
 * authentication) writes a write call's records into the outbox before the call runs, held until
 * `outcome` completes them: when the database or the function fails after the change, they are
 * delivered as written. A call may complete them itself, in the transaction of its change
 * (`auditIn`): they then commit with it. With `ownRecords` (a handler whose change is one
 * transaction that writes them, or that calls `recordAhead` before any other change), nothing is
 * written ahead for it: its records are written in its transaction, or ahead when it asks. A
 * failure to complete is logged and never fails the call; a failure to write ahead fails it,
 * before it changed anything.
 */
export function audit(
  operationId: string,
  principalOf: (event: APIGatewayProxyEventV2) => Principal | undefined,
  trail: AuditTrail,
  { ownRecords = false, changesNothing = false }: { ownRecords?: boolean; changesNothing?: boolean } = {},
): { outcome: Middleware; ahead: Middleware } {
  // A call that changes nothing itself (a POST that reads) is recorded as a read is: never chained.
  const isWrite = (request: Request) => !changesNothing && isWriteMethod(request);
  const recordsOf = (request: Request, answer?: AuditOutcome) => {
    const call = { ...callOf(request, principalOf(request.event)), ...outcomeOf(request, answer) };
    return { chainRecord: { ...call, operationId }, call };
  };
  const record = async (request: Request) => {
    const { chainRecord, call } = recordsOf(request);
    const held = heldOf(request);
    callRecords.delete(request.event);
    try {
      // Written with the change it records, which committed since the call answers (a call that fails is recorded with its failure).
      if (request.internal.auditWrittenIn && !request.error) await trail.deliver();
      else await (held ? trail.complete(held, chainRecord, call) : trail.record(isWrite(request) ? chainRecord : undefined, call));
    } catch (error) {
      const { requestId } = request.internal;
      if (held)
        logger.error({ err: error, requestId, held }, 'could not complete the audit records of a call; they are delivered as written ahead (outcome unknown)');
      else logger.error({ err: error, requestId }, 'could not record the audit record of a call');
    }
  };
  const writeAhead = async (request: Request) => {
    if (heldOf(request)) return;
    // Before the call can change anything: a change is never without its record.
    const call = { ...callOf(request, principalOf(request.event)), outcome: 'unknown' };
    request.internal.auditHeld = await trail.hold({ ...call, operationId }, call, HOLD_MS);
  };
  return {
    outcome: { after: record, onError: record },
    ahead: {
      before: async (request) => {
        if (!isWrite(request)) return;
        if (!ownRecords) await writeAhead(request);
        callRecords.set(request.event, {
          writeIn: async (tx, answer) => {
            const { chainRecord, call } = recordsOf(request, answer);
            const held = heldOf(request);
            await (held ? trail.complete(held, chainRecord, call, tx) : trail.record(chainRecord, call, tx));
            request.internal.auditWrittenIn = true;
          },
          writeAhead: () => writeAhead(request),
        });
      },
    },
  };
}
