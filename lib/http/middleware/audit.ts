import type middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';

import { AuditRepository } from '#lib/audit/audit-repository';
import { getDatabase } from '#lib/db/client';
import { logger } from '#lib/logging/logger';
import { dispatchInBackground } from '#lib/outbox/background-dispatch';
import { OutboxRepository } from '#lib/outbox/outbox-repository';
import { getSettings } from '#lib/settings/index';

import type { Principal } from '../endpoint';
import type { RequestContextInternal } from './request-context';

type Request = middy.Request<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, Context, RequestContextInternal>;

/** Methods that change nothing: not recorded in the audit chain. */
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** A write call into the audit chain of the database (lib/audit), whatever `audit.enabled` says. */
async function appendToChain(record: Record<string, unknown>, requestId: string): Promise<void> {
  try {
    await new AuditRepository(await getDatabase()).append(record);
  } catch (error) {
    logger.error({ err: error, requestId }, 'could not append a call to the audit chain');
  }
}

/** Any call to the platform's audit receiver when `audit.enabled`: through the outbox (so it is never lost), delivered in the background. */
async function sendToPlatform(record: Record<string, unknown>, requestId: string): Promise<void> {
  try {
    const settings = await getSettings();
    if (!settings.platformServices.audit.enabled) return;
    await new OutboxRepository(await getDatabase()).enqueue('audit', record);
    dispatchInBackground();
  } catch (error) {
    logger.error({ err: error, requestId }, 'could not record the audit record of a call');
  }
}

/**
 * One audit record per user call: who, what, the outcome and the request id. Write calls (not GET,
 * HEAD, OPTIONS) are appended to the audit chain, naming the operation; every call goes to the
 * platform's audit receiver when `audit.enabled`. A failure of either is logged and never fails the call.
 */
export function audit(
  operationId: string,
  principalOf: (event: APIGatewayProxyEventV2) => Principal | undefined,
): middy.MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, Context, RequestContextInternal> {
  const record = async (request: Request) => {
    const { requestId, startedAt } = request.internal;
    const method = request.event.requestContext?.http?.method;
    // What the call created, when its answer names it (201 Created, 202 Accepted).
    const location = request.response?.headers?.location;
    const call = {
      timestamp: new Date(startedAt).toISOString(),
      subject: principalOf(request.event)?.subject ?? 'anonymous',
      method,
      path: request.event.rawPath,
      status: request.response?.statusCode,
      durationMs: Date.now() - startedAt,
      requestId,
      ...(typeof location === 'string' ? { location } : {}),
    };
    await Promise.all([
      READS.has(method?.toUpperCase() ?? '') ? undefined : appendToChain({ ...call, operationId }, requestId),
      sendToPlatform(call, requestId),
    ]);
  };
  return { after: record, onError: record };
}
