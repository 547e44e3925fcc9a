import { STATUS_CODES } from 'node:http';

import { z } from 'zod';

import { outboundFetch, type OutboundTimeouts } from '#lib/platform/http-client';

import { type EngineEntity, engineFailure, type EngineResource, type EngineResult, type PolicyEngine } from '../engine';
import { judgeEachPair } from '../engine-pairs';

const policyAnswer = z.object({
  satisfiesPolicy: z.boolean(),
  errors: z.array(z.string()).default([]),
  details: z.record(z.string(), z.unknown()).optional(),
});

const metricAnswer = z.object({
  value: z.number(),
  errors: z.array(z.string()).default([]),
  details: z.record(z.string(), z.unknown()).optional(),
});

/** How many calls to remote engines one evaluation keeps in flight. */
const CONCURRENCY = 8;
const MAX_ANSWER_BYTES = 1_048_576;

/**
 * The remote engine of the contract: `POST {remoteEngineUrl}/v1/evaluate` with
 * `{ content, resourceType, resourceId }` per (entity, resource). A crash, timeout, non-2xx or an
 * answer of another shape is an engine failure of that pair.
 */
export class RemoteEngine implements PolicyEngine {
  constructor(private readonly timeouts: OutboundTimeouts) {}

  evaluate(entities: readonly EngineEntity[], resources: readonly EngineResource[], signal?: AbortSignal): Promise<EngineResult[][]> {
    return judgeEachPair(entities, resources, CONCURRENCY, (entity, resource) => this.call(entity, resource, signal));
  }

  private async call(entity: EngineEntity, resource: EngineResource, signal?: AbortSignal): Promise<EngineResult> {
    if (!entity.remoteEngineUrl) return engineFailure('The entity has no remoteEngineUrl');
    const url = `${entity.remoteEngineUrl.replace(/\/+$/, '')}/v1/evaluate`;
    // Messages name the host and what went wrong, never the URL's path or query nor what the engine wrote back:
    // an answer is the engine's (or, on a private network, any page's) and goes into results anyone may read.
    const at = `The remote engine at ${new URL(url).host}`;
    let response: Response;
    try {
      response = await outboundFetch(this.timeouts)(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ content: resource.content, resourceType: resource.resourceType, resourceId: resource.id }),
        signal,
      });
    } catch (error) {
      return engineFailure(`${at} failed: ${(error as Error).message}`);
    }
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      return engineFailure(`${at} failed while answering: ${(error as Error).message}`);
    }
    if (!response.ok) return engineFailure(`${at} answered ${response.status}${STATUS_CODES[response.status] ? ` (${STATUS_CODES[response.status]})` : ''}`);
    if (text.length > MAX_ANSWER_BYTES) return engineFailure(`${at} answered more than ${MAX_ANSWER_BYTES} bytes`);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return engineFailure(`${at} answered something that is not JSON`);
    }
    const parsed = (entity.kind === 'metric' ? metricAnswer : policyAnswer).safeParse(body);
    if (!parsed.success) {
      const expected =
        entity.kind === 'metric' ? '{ "value": number, "errors"?: [string] }' : '{ "satisfiesPolicy": boolean, "errors": [string], "details"?: object }';
      const [issue] = parsed.error.issues;
      const where =
        issue && issue.path.length > 0 ? ` (${issue.path.join('.')}: ${issue.code === 'invalid_type' ? `expected ${issue.expected}` : issue.code})` : '';
      return engineFailure(`${at} answered JSON that is not ${expected}${where}`);
    }
    const answer = parsed.data;
    if ('value' in answer)
      return {
        satisfiesPolicy: answer.errors.length === 0,
        isError: false,
        errors: answer.errors,
        value: answer.value,
        ...(answer.details ? { details: answer.details } : {}),
      };
    return { satisfiesPolicy: answer.satisfiesPolicy, isError: false, errors: answer.errors, ...(answer.details ? { details: answer.details } : {}) };
  }
}
