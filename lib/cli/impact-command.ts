import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

import type { z } from 'zod';

import { ApiError } from '#lib/api/api-error';
import { getImpactReportEndpoint, listImpactResourcesEndpoint } from '#lib/governance/impact/endpoints';
import type { ImpactReport, impactResourcesPage } from '#lib/governance/impact/impact';
import { metricEndpoints, policyEndpoints } from '#lib/governance/policies/endpoints';

import { type ApiAccess, ApiClient } from './api-client';
import { readPolicyFile } from './policy-file';
import { UsageError } from './usage-error';

const POLL_MS = 1_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface ImpactOptions extends ApiAccess {
  readonly env?: string[];
  readonly version?: number;
  readonly timeout: number;
}

/** What `cgp policies impact` found: the report and its newly failing resources. */
export interface ImpactRun {
  readonly report: ImpactReport;
  readonly newlyFailing: z.output<typeof impactResourcesPage>['data'];
}

/** Whether the id is a policy's or a metric's: the policies are asked first. */
async function kindOf(client: ApiClient, id: string): Promise<'policy' | 'metric'> {
  try {
    await client.call(policyEndpoints.get, { params: { id } });
    return 'policy';
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 404) throw error;
  }
  await client.call(metricEndpoints.get, { params: { id } });
  return 'metric';
}

const endpointsOf = (kind: 'policy' | 'metric') => (kind === 'metric' ? metricEndpoints : policyEndpoints);

/**
 * The policy (or metric) to weigh: an id, or a policy file of this repository that names its id
 * (`cgp policies pull` writes it) and whose script the platform's newest version holds.
 */
async function targetOf(client: ApiClient, argument: string): Promise<{ kind: 'policy' | 'metric'; id: string }> {
  if (UUID.test(argument) && !existsSync(argument)) return { kind: await kindOf(client, argument), id: argument };
  const file = await readPolicyFile(argument);
  const { kind, id } = file.metadata;
  if (!id) throw new UsageError(`${argument}: names no id: push it first (cgp policies push), or give the policy's id`);
  const newest = (await client.call(endpointsOf(kind).get, { params: { id } })).body;
  if (newest.cueScript !== file.body)
    throw new UsageError(`${argument}: the platform's newest version of ${kind} ${id} (${newest.version}) is not this file: push it first (cgp policies push)`);
  return { kind, id };
}

/** Starts the impact report, waits for it (at most `timeout` seconds), and reads its newly failing resources. */
export async function runImpact(argument: string, options: ImpactOptions): Promise<ImpactRun> {
  const client = new ApiClient(options);
  const { kind, id } = await targetOf(client, argument);
  const body = { ...(options.version ? { version: options.version } : {}), ...(options.env?.length ? { environments: options.env } : {}) };
  const started = await client.call(endpointsOf(kind).impact, {
    params: { id },
    body,
    headers: { prefer: 'wait=20' },
  });
  const reportId = 'impactReportId' in started.body ? started.body.impactReportId : started.body.id;
  const deadline = Date.now() + options.timeout * 1000;
  let report = 'impactReportId' in started.body ? undefined : started.body;
  while (!report || report.status === 'pending' || report.status === 'running') {
    if (Date.now() > deadline) throw new ApiError(0, `impact report ${reportId} had not ended after ${options.timeout} s (--timeout)`);
    if (report) await sleep(POLL_MS);
    report = (await client.call(getImpactReportEndpoint, { params: { id: reportId } })).body;
  }
  if (report.status === 'failed') throw new ApiError(0, `impact report ${reportId} failed: ${report.error ?? 'no reason given'}`);
  const newlyFailing = [];
  for (let after: string | null | undefined; after !== null;) {
    const page = (await client.call(listImpactResourcesEndpoint, { params: { id: reportId }, query: { change: 'newlyFailing', limit: 1000, after } })).body;
    newlyFailing.push(...page.data);
    after = page.meta.next;
  }
  return { report, newlyFailing };
}

const BAR_WIDTH = 30;

/** The run in words: the counts, a bar per environment (newly failing / still failing / passing), the newly failing resources. */
export function impactText({ report, newlyFailing }: ImpactRun): string {
  const counts = report.counts ?? { newlyFailing: 0, newlyPassing: 0, stillFailing: 0, stillPassing: 0, notEvaluated: 0 };
  const baseline = report.baselineVersion === null ? 'no live version' : `live version ${report.baselineVersion}`;
  const lines = [
    `impact of ${report.kind} ${report.policyId} version ${report.candidateVersion} against ${baseline}`,
    `newly failing ${counts.newlyFailing}, newly passing ${counts.newlyPassing}, still failing ${counts.stillFailing}, still passing ${counts.stillPassing}, never judged ${counts.notEvaluated}`,
    '',
  ];
  const widest = Math.max(0, ...report.byEnvironment.map((row) => row.environment.length));
  for (const row of report.byEnvironment) {
    const total = row.newlyFailing + row.newlyPassing + row.stillFailing + row.stillPassing + row.notEvaluated;
    const width = (n: number) => (total === 0 ? 0 : Math.round((n / total) * BAR_WIDTH));
    const bar = '!'.repeat(width(row.newlyFailing)) + 'x'.repeat(width(row.stillFailing)) + '.'.repeat(width(total - row.newlyFailing - row.stillFailing));
    lines.push(`${row.environment.padEnd(widest)}  ${bar.padEnd(BAR_WIDTH)}  ${row.newlyFailing} newly failing of ${total}`);
  }
  if (report.byThreshold.length > 0) {
    lines.push('', "thresholds (the live version's -> the candidate's):");
    for (const move of report.byThreshold) lines.push(`  ${move.baselineThreshold ?? '(none)'} -> ${move.candidateThreshold ?? '(none)'}: ${move.count}`);
  }
  if (newlyFailing.length > 0) {
    lines.push('', 'newly failing:');
    for (const row of newlyFailing)
      lines.push(`  ${row.environment} ${row.resourceId}${row.owner ? ` (${row.owner})` : ''}: ${row.errors.join('; ') || row.candidateOutcome}`);
  }
  return `${lines.join('\n')}\n`;
}
