import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import type { MiddlewareObj } from '@middy/core';
import type { Context } from 'aws-lambda';

import type { Settings } from '#lib/settings/index';

import { SERVICE_NAME } from './service-name';

// The service's metrics, in CloudWatch's embedded metric format (EMF) through Powertools Metrics:
// JSON lines on stdout that CloudWatch Logs turns into metrics (no agent), and that `npm start`
// shows in its log. Like the logger, a process-wide recorder: the function's factory (lib/http/handler.ts,
// lib/service/function-handler.ts) chooses its instance from the settings before each invocation and
// flushes it after; code anywhere below records into it. docs/operations.md lists the metrics.

export { MetricUnit };

/** A unit of Powertools (Count, Milliseconds, Seconds...). */
export type Unit = (typeof MetricUnit)[keyof typeof MetricUnit];

/** Every metric the service emits, in one place: docs/operations.md explains each. */
export type MetricName =
  | 'Requests'
  | 'RequestLatency'
  | 'ServerErrors'
  | 'Evaluations'
  | 'EvaluationsNotCompliant'
  | 'EvaluationsFailed'
  | 'EngineCallDuration'
  | 'ReportDuration'
  | 'ReportsFailed'
  | 'ResolverPages'
  | 'ResolverPageLatency'
  | 'QueueLag'
  | 'OutboxBacklog'
  | 'OutboxOldestAge'
  | 'OutboxDelivered'
  | 'OutboxFailed'
  | 'AuthenticationRefusals'
  | 'ApprovalsPending'
  | 'ModelCalls'
  | 'ModelTokens';

/**
 * The dimensions a metric may carry beyond `service`: kept few on purpose. `function` is the
 * operation of an HTTP call (its operation id, the same in every stage).
 */
export interface MetricDimensions {
  readonly function?: string;
  readonly engine?: string;
  readonly environment?: string;
  readonly topic?: string;
  readonly reason?: string;
  readonly model?: 'llm' | 'embedder';
}

/**
 * One Powertools instance per namespace and set of dimensions (a handful: operations, engines,
 * environments, topics), made once per process: the `service` total, and one per breakdown.
 */
const instances = new Map<string, Metrics>();
/** The namespace of the invocation running now; none when metrics are off (or outside a function). */
let current: string | undefined;
/** The breakdowns the invocation recorded into, flushed with its total. */
const breakdowns = new Set<Metrics>();

function instanceFor(namespace: string, dimensions: ReadonlyArray<[string, string]> = []): Metrics {
  const key = [namespace, ...dimensions.map(([name, value]) => `${name}=${value}`)].join('\u0000');
  let metrics = instances.get(key);
  if (!metrics) {
    metrics = new Metrics({ namespace, serviceName: SERVICE_NAME, defaultDimensions: Object.fromEntries(dimensions) });
    instances.set(key, metrics);
  }
  return metrics;
}

/**
 * Records a value into the invocation's batch (flushed after it) under the `service` dimension
 * alone: the total that alarms and the dashboard read. With dimensions it is also recorded under
 * them, to break the total down (by engine, environment, topic...): one line per set of dimensions,
 * flushed with the total.
 */
export function recordMetric(name: MetricName, unit: Unit, value: number, dimensions: MetricDimensions = {}): void {
  if (!current || !Number.isFinite(value)) return;
  instanceFor(current).addMetric(name, unit, value);
  const set = Object.entries(dimensions).filter((entry): entry is [string, string] => typeof entry[1] === 'string' && entry[1] !== '');
  if (set.length === 0) return;
  const breakdown = instanceFor(current, set);
  breakdown.addMetric(name, unit, value);
  breakdowns.add(breakdown);
}

/** Writes the breakdowns the invocation recorded (the total is flushed by Powertools' middleware). */
function flushBreakdowns(): void {
  for (const breakdown of breakdowns) breakdown.publishStoredMetrics();
  breakdowns.clear();
}

/**
 * The middy middleware of every function: from the settings `settingsOf` gives, chooses the
 * instance (`observability.metrics.namespace`) or none (`observability.metrics.enabled = false`),
 * and flushes through Powertools' own
 * middleware (logMetrics) after the handler, or when it throws.
 */
export function metricsMiddleware(settingsOf: () => Promise<Settings>): MiddlewareObj<unknown, unknown, Error, Context> {
  const flushers = new Map<Metrics, ReturnType<typeof logMetrics>>();
  const flusherOf = (metrics: Metrics) => {
    let flusher = flushers.get(metrics);
    if (!flusher) {
      flusher = logMetrics(metrics);
      flushers.set(metrics, flusher);
    }
    return flusher;
  };
  return {
    before: async (request) => {
      // Settings that cannot be read are the handler's to report (health answers 503 then): no metrics meanwhile.
      const config = await settingsOf().then(
        (settings) => settings.observability.metrics,
        () => undefined,
      );
      current = config?.enabled ? config.namespace : undefined;
      breakdowns.clear();
      if (current) await flusherOf(instanceFor(current)).before?.(request as never);
    },
    after: async (request) => {
      if (!current) return;
      flushBreakdowns();
      await flusherOf(instanceFor(current)).after?.(request as never);
    },
    onError: async (request) => {
      if (!current) return;
      flushBreakdowns();
      await flusherOf(instanceFor(current)).onError?.(request as never);
    },
  };
}
