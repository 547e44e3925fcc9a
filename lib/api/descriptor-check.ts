import { setTimeout as sleep } from 'node:timers/promises';

import { evaluateEndpoint, getEvaluationReportEndpoint, getEvaluationReportResultsEndpoint } from '#lib/governance/evaluation/endpoints';
import type { EvaluationReport, EvaluationResult } from '#lib/governance/evaluation/report';
import { metricEndpoints, policyEndpoints } from '#lib/governance/policies/endpoints';

import { ApiError } from './api-error';
import type { CheckResult, CheckRun } from './check-results';
import type { EndpointCaller } from './endpoint-caller';

const POLL_MS = 1000;

const ended = (report: EvaluationReport) => report.status === 'completed' || report.status === 'failed';

/** Every result of the report: its first page, then the pages its `next` cursor names. */
async function allResults(client: EndpointCaller, report: EvaluationReport): Promise<EvaluationResult[]> {
  const results = [...report.evaluationResults];
  for (let next = report.resultsPage.next; next !== null;) {
    const page = await client.call(getEvaluationReportResultsEndpoint, { params: { id: report.id }, query: { limit: 1000, after: next } });
    results.push(...page.body.data);
    next = page.body.meta.next;
  }
  return results;
}

/** The names of the policies and metrics of the results, read once each (their id when it cannot be read). */
async function entityNames(client: EndpointCaller, results: readonly EvaluationResult[]): Promise<Map<string, string>> {
  const entities = new Map(results.map((result) => [result.governanceEntityId, result.governanceEntityType]));
  const names = new Map<string, string>();
  await Promise.all(
    [...entities].map(async ([id, type]) => {
      try {
        names.set(id, (await client.call((type === 'metric' ? metricEndpoints : policyEndpoints).get, { params: { id } })).body.name);
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
      }
    }),
  );
  return names;
}

/** A descriptor to check against what is in force for its type and environment. */
export interface DescriptorCheck {
  readonly type: string;
  readonly env: string;
  /** Its text (YAML or JSON), and where it came from, as the results name it. */
  readonly text: string;
  readonly file: string;
  readonly id?: string;
  readonly labels?: readonly string[];
  /** How long to wait for the report to end, in seconds. */
  readonly timeout: number;
  /** How long Evaluate itself may hold the call (`Prefer: wait`, at most 25 s) before the report is polled. */
  readonly wait: number;
  /** A dry run whoever calls (the MCP server's check: never the resource's state). */
  readonly dryRun?: boolean;
}

/**
 * Sends the descriptor to Evaluate, waits for the report to end (Prefer: wait, then polling), reads
 * every result, and gives the report as a run: `passed` is the report's. `cgp evaluate` (the
 * deploy gate) and the MCP server's `check_policies` run it.
 */
export async function checkDescriptor(client: EndpointCaller, check: DescriptorCheck): Promise<CheckRun> {
  const { text, file } = check;
  const body = {
    environment: check.env,
    resourceType: check.type,
    descriptor: text,
    ...(check.id ? { id: check.id } : {}),
    labels: [...(check.labels ?? [])],
    ...(check.dryRun ? { dryRun: true } : {}),
  };
  const answer = await client.call(evaluateEndpoint, {
    body,
    headers: { prefer: `wait=${check.wait}` },
  });
  let report = 'status' in answer.body ? answer.body : undefined;
  const reportId = 'reportId' in answer.body ? answer.body.reportId : answer.body.id;
  const deadline = Date.now() + check.timeout * 1000;
  while (!report || !ended(report)) {
    if (Date.now() > deadline) throw new ApiError(0, `report ${reportId} had not ended after ${check.timeout} s (--timeout)`);
    if (report) await sleep(POLL_MS);
    report = (await client.call(getEvaluationReportEndpoint, { params: { id: reportId } })).body;
  }
  const results = await allResults(client, report);
  const names = await entityNames(client, results);
  const checks: CheckResult[] = results.map((result) => ({
    policy: {
      ref: result.governanceEntityId,
      name: names.get(result.governanceEntityId) ?? result.governanceEntityId,
      kind: result.governanceEntityType,
      severity: result.severity,
    },
    descriptor: { file, text },
    outcome: result.outcome,
    errors: result.result.errors,
    ...(result.result.value === undefined ? {} : { value: result.result.value }),
    ...(result.result.threshold ? { threshold: result.result.threshold } : {}),
  }));
  if (report.status === 'failed') {
    // The run itself failed (resolver down, type deleted): one failed result says why.
    checks.push({
      policy: { ref: 'evaluation', name: 'evaluation', kind: 'policy', severity: 'error' },
      descriptor: { file, text },
      outcome: 'failed',
      errors: [report.error ?? 'the evaluation failed'],
    });
  }
  return { results: checks, outcome: report.outcome ?? 'failed', passed: report.passed === true, reportId: report.id };
}
