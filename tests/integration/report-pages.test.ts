import { randomUUID } from 'node:crypto';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { Database } from '#lib/db/client';
import { ReportRepository } from '#lib/governance/evaluation/report-repository';
import { type NewResult, ResultRepository } from '#lib/governance/evaluation/result-repository';

import type * as evaluationModule from '../../functions/governance/evaluation';
import { apiGatewayEvent, lambdaContext } from '../support/api-gateway-event';
import { testDatabase } from '../support/database';
import { releaseHandlers, useHandlersOn } from '../support/handlers';
import { invoke } from '../support/invoke';
import { authorized } from '../support/tokens';

const SCHEMA = 'it_report_pages';
let database: Database;
let evaluation: typeof evaluationModule;

/** A finished report holding `count` results, every seventh failing with `message`, written as the runner writes them. */
async function reportWith(count: number, message = 'owner: incomplete value string'): Promise<string> {
  const report = await new ReportRepository(database).create({
    scope: 'policy',
    cause: 'publish',
    environment: 'development',
    resourceType: 'dataproduct',
    labels: [],
    request: { mode: 'queued', entities: [] },
    createdBy: 'test',
  });
  const entityId = randomUUID();
  const results: NewResult[] = Array.from({ length: count }, (_, index) => ({
    reportId: report.id,
    recorded: true,
    entityId,
    entityVersion: 1,
    entityKind: 'policy',
    entityStatus: 'enabled',
    severity: 'error',
    outcome: index % 7 === 0 ? 'error' : 'ok',
    resourceId: `dp-${String(index).padStart(6, '0')}`,
    resourceDisplayName: null,
    resourceVersion: null,
    environment: 'development',
    resourceType: 'dataproduct',
    result: { satisfiesPolicy: index % 7 !== 0, isError: false, errors: index % 7 === 0 ? [message] : [] },
    value: null,
  }));
  for (let start = 0; start < results.length; start += 1000) await new ResultRepository(database).append(results.slice(start, start + 1000));
  return report.id;
}

const read = (id: string, query?: Record<string, string>) =>
  invoke(evaluation.getEvaluationReport, { method: 'GET', path: `/v1/computational-governance/evaluation-reports/${id}`, params: { id }, query });
const results = (id: string, query?: Record<string, string>) =>
  invoke(evaluation.getEvaluationReportResults, {
    method: 'GET',
    path: `/v1/computational-governance/evaluation-reports/${id}/results`,
    params: { id },
    query,
  });

beforeAll(async () => {
  await useHandlersOn(SCHEMA);
  database = await testDatabase(SCHEMA);
  evaluation = await import('../../functions/governance/evaluation');
});

afterAll(async () => {
  await releaseHandlers();
  await database.close();
});

describe('a report of many results', () => {
  it('carries its counts whole and its first 1000 results, with the cursor of the next page', async () => {
    const id = await reportWith(2500);
    const response = await read(id);
    expect(response.status).toBe(200);
    expect(response.body.counts).toEqual({ total: 2500, ok: 2142, waived: 0, info: 0, warning: 0, error: 358, failed: 0 });
    expect(response.body.evaluationResults).toHaveLength(1000);
    expect(response.body.evaluationResults[0].resource.id).toBe('dp-000000');
    expect(response.body.resultsPage).toEqual({ limit: 1000, next: expect.stringMatching(/^\d+$/) });
    expect(response.headers.link).toBe(
      `</v1/computational-governance/evaluation-reports/${id}/results?limit=1000&after=${response.body.resultsPage.next}>; rel="next"`,
    );
  });

  it('reads every result once, page by page, in the order they were written', async () => {
    const id = await reportWith(2300);
    const seen: string[] = [];
    let after: string | null = null;
    let pages = 0;
    do {
      const page = await results(id, { limit: '700', ...(after ? { after } : {}) });
      expect(page.status).toBe(200);
      seen.push(...page.body.data.map((result: { resource: { id: string } }) => result.resource.id));
      after = page.body.meta.next;
      pages++;
    } while (after);
    expect(pages).toBe(4);
    expect(seen).toEqual(Array.from({ length: 2300 }, (_, index) => `dp-${String(index).padStart(6, '0')}`));
  });

  it('answers NDJSON, one result per line, when asked', async () => {
    const id = await reportWith(30);
    const response = await evaluation.getEvaluationReportResults(
      apiGatewayEvent({
        method: 'GET',
        path: `/v1/computational-governance/evaluation-reports/${id}/results`,
        params: { id },
        query: { limit: '20' },
        headers: await authorized({ accept: 'application/x-ndjson' }),
      }),
      lambdaContext(),
    );
    expect(response.statusCode).toBe(200);
    expect(response.headers?.['content-type']).toBe('application/x-ndjson');
    const lines = String(response.body).split('\n');
    expect(lines.at(-1)).toBe('');
    expect(lines.slice(0, -1).map((line) => JSON.parse(line).resource.id)).toEqual(
      Array.from({ length: 20 }, (_, index) => `dp-${String(index).padStart(6, '0')}`),
    );
    expect(response.headers?.link).toMatch(/rel="next"$/);
  });

  it('bounds a page by the bytes it sends (UTF-8), not by its characters, so that it fits in a Lambda answer', async () => {
    // Failing results of 1,000,000 characters of 3 bytes each: a page of 4 MB holds one, however many `limit` allows.
    const id = await reportWith(15, '語'.repeat(1_000_000));
    const seen: string[] = [];
    let after: string | undefined;
    do {
      const response = await evaluation.getEvaluationReportResults(
        apiGatewayEvent({
          method: 'GET',
          path: `/v1/computational-governance/evaluation-reports/${id}/results`,
          params: { id },
          query: after ? { after } : {},
          headers: await authorized(),
        }),
        lambdaContext(),
      );
      expect(response.statusCode).toBe(200);
      expect(Buffer.byteLength(String(response.body))).toBeLessThanOrEqual(4 * 1024 * 1024 + 1024);
      const page = JSON.parse(String(response.body)) as { data: { resource: { id: string } }[]; meta: { next: string | null } };
      seen.push(...page.data.map((result) => result.resource.id));
      after = page.meta.next ?? undefined;
    } while (after);
    expect(seen).toEqual(Array.from({ length: 15 }, (_, index) => `dp-${String(index).padStart(6, '0')}`));
  });

  it('keeps small reports whole, as before: no next page', async () => {
    const id = await reportWith(12);
    const response = await read(id);
    expect(response.body.evaluationResults).toHaveLength(12);
    expect(response.body.resultsPage).toEqual({ limit: 1000, next: null });
    expect(response.headers.link).toBeUndefined();
  });

  it('refuses a bad page size or cursor with a 400 naming it, and an unknown report with a 404', async () => {
    const id = await reportWith(1);
    expect((await results(id, { limit: '0' })).body.errors).toEqual([{ path: 'query.limit', message: 'limit must be at least 1' }]);
    expect((await results(id, { limit: '1001' })).body.errors).toEqual([{ path: 'query.limit', message: 'limit must be at most 1000' }]);
    expect((await results(id, { after: 'abc' })).body.errors).toEqual([{ path: 'query.after', message: 'after must be a whole number' }]);
    expect((await results(id, { after: '-1' })).body.errors).toEqual([{ path: 'query.after', message: 'after must be a whole number' }]);
    expect((await results(id, { after: '99999999999999999999' })).body.errors).toEqual([
      { path: 'query.after', message: `after must be at most ${Number.MAX_SAFE_INTEGER}` },
    ]);
    expect((await read(id, { limit: '2.5' })).body.errors).toEqual([{ path: 'query.limit', message: 'limit must be a whole number' }]);
    expect((await results(randomUUID())).status).toBe(404);
  });
});
