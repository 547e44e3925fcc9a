import pRetry from 'p-retry';

import { logger } from '#lib/logging/logger';

/** What CloudFormation sends a custom resource's function (docs/deployment.md, "The schema"). */
export interface CloudFormationResourceEvent {
  readonly RequestType: 'Create' | 'Update' | 'Delete';
  readonly ResponseURL: string;
  readonly StackId: string;
  readonly RequestId: string;
  readonly LogicalResourceId: string;
  readonly PhysicalResourceId?: string;
}

export const isCloudFormationResourceEvent = (event: unknown): event is CloudFormationResourceEvent =>
  typeof event === 'object' && event !== null && typeof (event as { ResponseURL?: unknown }).ResponseURL === 'string' && 'RequestType' in event;

/** CloudFormation shows a failure's reason in the stack's events; it takes up to 4 KB of the whole answer. */
const MAX_REASON = 1000;

/**
 * Runs `work` for a Create or Update of a custom resource and tells CloudFormation how it went, by the
 * response URL it gave (a presigned S3 URL): SUCCESS with `work`'s values as the resource's data, or
 * FAILED with the error's message, which fails the deploy and rolls it back. A Delete (the stack
 * removed, or the resource replaced) does nothing: what the work made (the schema and its data) is
 * never removed with the stack. The answer is sent a few times before giving up: CloudFormation
 * would otherwise wait for it until the resource's ServiceTimeout.
 */
export async function answerCloudFormation(event: CloudFormationResourceEvent, work: () => Promise<Record<string, string>>): Promise<void> {
  let answer: { Status: 'SUCCESS' | 'FAILED'; Reason?: string; Data?: Record<string, string> };
  if (event.RequestType === 'Delete') answer = { Status: 'SUCCESS' };
  else {
    try {
      answer = { Status: 'SUCCESS', Data: await work() };
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      logger.error({ requestType: event.RequestType, resource: event.LogicalResourceId, reason }, 'custom resource failed');
      answer = { Status: 'FAILED', Reason: reason.slice(0, MAX_REASON) };
    }
  }
  const body = JSON.stringify({
    ...answer,
    // The same on every request: a new one would make CloudFormation delete the "old" resource.
    PhysicalResourceId: event.PhysicalResourceId ?? event.LogicalResourceId,
    StackId: event.StackId,
    RequestId: event.RequestId,
    LogicalResourceId: event.LogicalResourceId,
  });
  await pRetry(
    async () => {
      // No content type: the presigned URL was signed without one.
      const response = await fetch(event.ResponseURL, { method: 'PUT', body, headers: { 'content-type': '' }, signal: AbortSignal.timeout(10_000) });
      if (!response.ok) throw new Error(`CloudFormation's response URL answered ${response.status}`);
    },
    { retries: 4, minTimeout: 500 },
  );
  logger.info({ requestType: event.RequestType, resource: event.LogicalResourceId, status: answer.Status }, 'custom resource answered');
}
