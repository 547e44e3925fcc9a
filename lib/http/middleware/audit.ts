import type middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';

import { getDatabase } from '#lib/db/client';
import { logger } from '#lib/logging/logger';
import { dispatchInBackground } from '#lib/outbox/background-dispatch';
import { OutboxRepository } from '#lib/outbox/outbox-repository';
import { getSettings } from '#lib/settings/index';

import type { Principal } from '../endpoint';
import type { RequestContextInternal } from './request-context';

type Request = middy.Request<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, Context, RequestContextInternal>;

/**
 * One audit record per user call when `audit.enabled`: written to the outbox (so it is never
 * lost) and delivered in the background. A failure here is logged and never fails the call.
 */
export function audit(
  principalOf: (event: APIGatewayProxyEventV2) => Principal | undefined,
): middy.MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, Context, RequestContextInternal> {
  const record = async (request: Request) => {
    try {
      const settings = await getSettings();
      if (!settings.platformServices.audit.enabled) return;
      const { requestId, startedAt } = request.internal;
      // What the call created, when its answer names it (201 Created, 202 Accepted).
      const location = request.response?.headers?.location;
      await new OutboxRepository(await getDatabase()).enqueue('audit', {
        timestamp: new Date(startedAt).toISOString(),
        subject: principalOf(request.event)?.subject ?? 'anonymous',
        method: request.event.requestContext?.http?.method,
        path: request.event.rawPath,
        status: request.response?.statusCode,
        durationMs: Date.now() - startedAt,
        requestId,
        ...(typeof location === 'string' ? { location } : {}),
      });
      dispatchInBackground();
    } catch (error) {
      logger.error({ err: error, requestId: request.internal.requestId }, 'could not record the audit record of a call');
    }
  };
  return { after: record, onError: record };
}
