import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { z } from 'zod';

import type { FieldError, HttpProblem } from './problems';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

const slug = (title: string) =>
  title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

/** The problem document of an HttpProblem, as the API contract shapes it; a member never replaces RFC 9457's own fields (`status` is the HTTP status). */
function problemBody(problem: HttpProblem, requestId?: string): Record<string, unknown> {
  return {
    ...problem.extra.members,
    type: `urn:problem-type:${slug(problem.title)}`,
    title: problem.title,
    status: problem.status,
    detail: problem.message,
    ...(problem.extra.errors ? { errors: problem.extra.errors } : {}),
    ...(requestId ? { requestId } : {}),
  };
}

export function problemResponse(problem: HttpProblem, requestId?: string): APIGatewayProxyStructuredResultV2 {
  return {
    statusCode: problem.status,
    headers: { 'content-type': PROBLEM_CONTENT_TYPE, ...problem.extra.headers },
    body: JSON.stringify(problemBody(problem, requestId)),
  };
}

/** Every zod issue as a field error with its JSON path (prefixed by where in the request it was). */
export function fieldErrors(issues: z.core.$ZodIssue[], prefix?: string): FieldError[] {
  return issues.flatMap((issue) => {
    const base = [...(prefix ? [prefix] : []), ...issue.path.map(String)];
    if (issue.code === 'unrecognized_keys') {
      const message = prefix === 'query' && issue.path.length === 0 ? 'unknown query parameter' : 'unknown field';
      return issue.keys.map((key) => ({ path: [...base, key].join('.'), message }));
    }
    return [{ path: base.join('.'), message: issue.message }];
  });
}
