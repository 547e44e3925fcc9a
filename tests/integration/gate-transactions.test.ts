import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import type * as clientModule from '#lib/db/client';
import type { ServiceContext } from '#lib/db/client';
import type * as backgroundModule from '#lib/outbox/background-dispatch';

import type * as evaluationModule from '../../functions/governance/evaluation';
import type * as policiesModule from '../../functions/governance/policies';
import { testDatabase } from '../support/database';
import { releaseHandlers, useHandlersOn } from '../support/handlers';
import { invoke } from '../support/invoke';
import { technicalToken } from '../support/tokens';

// The deploy gate's hot path (issue 46): the PostgreSQL transactions one Evaluate call waits for,
// counted at the client (postgres.js's debug hook on the handlers' pool): a statement outside a
// transaction is one, a begin...commit is one. The background delivery the call starts (the
// audit chain's links) is held back here and counted on its own.

const counted = vi.hoisted(() => {
  const inTransaction = new Map<number, boolean>();
  const state = { transactions: 0, statements: [] as string[], backgrounds: [] as Array<{ ctx: unknown }> };
  const debug = (connection: number, query: string) => {
    const text = query.trim().toLowerCase();
    state.statements.push(text);
    if (text.startsWith('begin')) {
      inTransaction.set(connection, true);
      state.transactions += 1;
    } else if (text === 'commit' || text === 'rollback') inTransaction.set(connection, false);
    else if (!inTransaction.get(connection)) state.transactions += 1;
  };
  return { state, debug };
});

vi.mock('#lib/db/client', async (importOriginal) => {
  const original = await importOriginal<typeof clientModule>();
  return {
    ...original,
    openDatabase: (...[settings, overrides]: Parameters<typeof original.openDatabase>) =>
      original.openDatabase(settings, { ...overrides, debug: counted.debug }),
  };
});

vi.mock('#lib/outbox/background-dispatch', async (importOriginal) => {
  const original = await importOriginal<typeof backgroundModule>();
  return { ...original, dispatchInBackground: (ctx: ServiceContext) => counted.state.backgrounds.push({ ctx }) };
});

const SCHEMA = 'it_gate_transactions';
const API = '/v1/computational-governance';
let policies: typeof policiesModule;
let evaluation: typeof evaluationModule;

/** Counts what `work` sends to PostgreSQL: its transactions, and its statements (for the failure message). */
async function count<T>(work: () => Promise<T>): Promise<{ result: T; transactions: number; statements: string[] }> {
  counted.state.transactions = 0;
  counted.state.statements = [];
  const result = await work();
  return { result, transactions: counted.state.transactions, statements: [...counted.state.statements] };
}

const ci = async () => ({ authorization: `Bearer ${await technicalToken({ sub: 'gate-ci', roles: ['evaluator'] })}` });
const evaluate = async (id: string) =>
  invoke(evaluation.evaluate, {
    method: 'POST',
    path: `${API}/evaluate`,
    body: { environment: 'development', resourceType: 'dataproduct', descriptor: JSON.stringify({ id, owner: 'alice', tier: 2 }) },
    headers: { ...(await ci()), prefer: 'wait=20' },
  });

/** Delivers what the calls left to the background (held back above), as the process would once they answered. */
async function deliverInBackground(): Promise<void> {
  const { dispatchOutbox, platformDelivery } = await import('#lib/outbox/outbox-dispatcher');
  const calls = counted.state.backgrounds.splice(0);
  const { database, settings } = calls[0].ctx as ServiceContext;
  await dispatchOutbox(database, platformDelivery(settings));
}

beforeAll(async () => {
  await useHandlersOn(
    SCHEMA,
    `computational-governance-platform.resource-types = [ { name = "dataproduct", configuration { resource-name = "id" }, resolver-configuration { url = "http://127.0.0.1:9", path = "/r" } } ]
computational-governance-platform.cue-config.evaluator = "native"`,
  );
  policies = await import('../../functions/governance/policies');
  evaluation = await import('../../functions/governance/evaluation');
  for (const [index, cueScript] of ['owner: string & !=""', 'tier: int & >=1 & <=3', 'id: =~"^dp-"'].entries()) {
    const created = await invoke(policies.createPolicy, {
      method: 'POST',
      path: `${API}/policies`,
      body: { name: `gate ${index}`, resourceType: 'dataproduct', engine: 'cue', cueScript },
    });
    expect(created.status).toBe(201);
    expect(
      (await invoke(policies.publishPolicy, { method: 'POST', path: `${API}/policies/${created.body.id}/publish`, params: { id: created.body.id } })).status,
    ).toBe(200);
  }
  // The first call of the process reads its settings and compiles the policies.
  const warm = await evaluate('dp-warm');
  expect(warm.status).toBe(200);
  await deliverInBackground();
});

afterAll(async () => {
  await releaseHandlers();
});

describe('one Evaluate call', () => {
  it('waits for 2 PostgreSQL transactions (issue 46 allows 3): the caller’s role bindings, and the evaluation with its audit records', async () => {
    const { result, transactions, statements } = await count(() => evaluate('dp-1'));
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ status: 'completed', passed: true });
    expect(result.body.evaluationResults).toHaveLength(3);
    expect(transactions, statements.map((statement) => statement.slice(0, 80)).join('\n')).toBeLessThanOrEqual(2);
    // Nothing changed since the call before: the type, the environments and the policies are the process's, checked by one read.
    expect(statements.filter((statement) => /from "[^"]+"\."(governance_entities|resource_types|environments)"/.test(statement))).toEqual([]);
    expect(statements.filter((statement) => statement.includes('"governance_generation"'))).toHaveLength(1);
    await deliverInBackground();
  });

  it('answers with its audit record written in the evaluation’s transaction, due to be linked; one background run links the records of many calls in one transaction', async () => {
    const database = await testDatabase(SCHEMA);
    try {
      const answered = [];
      for (let i = 0; i < 5; i++) answered.push(await evaluate(`dp-batch-${i}`));
      const waiting = await database.sql.unsafe(
        `select payload from ${SCHEMA}.outbox where topic = 'chain' and delivered_at is null and next_attempt_at <= now() order by id`,
      );
      expect(waiting.map(({ payload }) => payload)).toEqual(
        answered.map((answer) =>
          expect.objectContaining({ subject: 'gate-ci', operationId: 'evaluate', status: 200, location: `${API}/evaluation-reports/${answer.body.id}` }),
        ),
      );
      const { transactions } = await count(deliverInBackground);
      // Which topics are due, then the links of all five in one transaction.
      expect(transactions).toBe(2);
      const linked = await database.sql.unsafe(`select record from ${SCHEMA}.audit_records order by seq desc limit 5`);
      expect(linked.map(({ record }) => record.location).reverse()).toEqual(answered.map((answer) => `${API}/evaluation-reports/${answer.body.id}`));
    } finally {
      await database.close();
    }
  });

  it('answers exactly the report a read of it gives back', async () => {
    const answered = await evaluate('dp-read-back');
    const read = await invoke(evaluation.getEvaluationReport, {
      method: 'GET',
      path: `${API}/evaluation-reports/${answered.body.id}`,
      params: { id: answered.body.id },
      headers: await ci(),
    });
    expect(read.status).toBe(200);
    expect(answered.body).toEqual(read.body);
    await deliverInBackground();
  });
});

describe('the policies a process keeps for the gate', () => {
  it('are never older than a publish or a status change that answered', async () => {
    const failing = { id: 'dp-kept', owner: 'alice', tier: 2, region: 'us' };
    const judge = async () => {
      const answer = await invoke(evaluation.evaluate, {
        method: 'POST',
        path: `${API}/evaluate`,
        body: { environment: 'development', resourceType: 'dataproduct', descriptor: JSON.stringify(failing) },
        headers: { ...(await ci()), prefer: 'wait=20' },
      });
      expect(answer.status).toBe(200);
      return answer.body as { passed: boolean; evaluationResults: unknown[] };
    };
    expect(await judge()).toMatchObject({ passed: true, evaluationResults: expect.toSatisfy((results: unknown[]) => results.length === 3) });

    const created = await invoke(policies.createPolicy, {
      method: 'POST',
      path: `${API}/policies`,
      body: { name: 'gate region', resourceType: 'dataproduct', engine: 'cue', cueScript: 'region: "eu"' },
    });
    const { id } = created.body;
    expect((await invoke(policies.publishPolicy, { method: 'POST', path: `${API}/policies/${id}/publish`, params: { id } })).status).toBe(200);
    // The next call judges with it: the process's kept policies are stale, its first write sees a newer
    // generation and is rolled back, and it judges again with what it reads. One report, one audit record.
    const database = await testDatabase(SCHEMA);
    const written = async () => {
      const [row] = await database.sql.unsafe(
        `select (select count(*) from ${SCHEMA}.evaluation_reports)::int as reports,
                (select count(*) from ${SCHEMA}.outbox where topic = 'chain' and payload->>'operationId' = 'evaluate')::int as records`,
      );
      return row;
    };
    try {
      const before = await written();
      expect(await judge()).toMatchObject({ passed: false, evaluationResults: expect.toSatisfy((results: unknown[]) => results.length === 4) });
      expect(await written()).toEqual({ reports: before.reports + 1, records: before.records + 1 });
    } finally {
      await database.close();
    }

    const disabled = await invoke(policies.changeStatusOfPolicy, {
      method: 'POST',
      path: `${API}/policies/${id}/status`,
      params: { id },
      body: { status: 'disabled' },
    });
    expect(disabled.status).toBe(200);
    expect(await judge()).toMatchObject({ passed: true, evaluationResults: expect.toSatisfy((results: unknown[]) => results.length === 3) });
    await deliverInBackground();
  });
});
