import { describe, expect, it } from 'vitest';

import { isTracing } from '#lib/observability/tracing';
import { runtimeEnvironment } from '#lib/settings/environment';

const lambda = { AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x', LAMBDA_TASK_ROOT: '/var/task' };
const traced = (env: NodeJS.ProcessEnv) => runtimeEnvironment(env).traced;

describe('where traces are sent', () => {
  it('inside AWS Lambda', () => {
    expect(traced(lambda)).toBe(true);
    expect(traced({ ...lambda, POWERTOOLS_TRACE_ENABLED: 'true' })).toBe(true);
  });

  it('not when Powertools is told not to, nor under serverless offline, npm start or the tests', () => {
    expect(traced({ ...lambda, POWERTOOLS_TRACE_ENABLED: 'FALSE' })).toBe(false);
    expect(traced({ ...lambda, IS_OFFLINE: 'true' })).toBe(false);
    expect(traced({ LAMBDA_TASK_ROOT: '/var/task', IS_OFFLINE: 'true' })).toBe(false);
    expect(traced({})).toBe(false);
    // This process is none of those places: the tracer (and X-Ray's SDK) was not even loaded.
    expect(isTracing()).toBe(false);
  });
});
