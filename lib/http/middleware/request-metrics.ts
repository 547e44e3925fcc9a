import { performance } from 'node:perf_hooks';

import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

import { MetricUnit, recordMetric } from '#lib/observability/metrics';

/**
 * Every call's count and latency, and the answers that were server errors (5xx), once its answer
 * is final (after problem+json): in all, and by operation (the `function` dimension).
 */
export function requestMetrics(operationId: string): MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2> {
  const started = new WeakMap<APIGatewayProxyEventV2, number>();
  const answered = ({ event, response }: { event: APIGatewayProxyEventV2; response: APIGatewayProxyStructuredResultV2 | null | undefined }) => {
    const start = started.get(event);
    const operation = { function: operationId };
    recordMetric('Requests', MetricUnit.Count, 1, operation);
    if (start !== undefined) recordMetric('RequestLatency', MetricUnit.Milliseconds, performance.now() - start, operation);
    recordMetric('ServerErrors', MetricUnit.Count, (response?.statusCode ?? 500) >= 500 ? 1 : 0, operation);
  };
  return {
    before: ({ event }) => {
      started.set(event, performance.now());
    },
    after: answered,
    onError: answered,
  };
}
