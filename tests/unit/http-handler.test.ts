import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';

import { ConflictError, InvalidInput, NotFoundError, Unavailable, UnprocessableInput, UpstreamError } from '#lib/errors/domain-errors';
import { endpoint } from '#lib/http/endpoint';
import { httpHandler } from '#lib/http/handler';
import { Conflict } from '#lib/http/problems';
import { logger } from '#lib/logging/logger';

import { apiGatewayEvent, lambdaContext } from '../support/api-gateway-event';

const thingEndpoint = endpoint({
  operationId: 'createThing',
  method: 'POST',
  path: '/things/{id}',
  summary: 'test endpoint',
  tags: [],
  // Authentication has tests of its own.
  public: true,
  params: z.object({ id: z.string().regex(/^\d+$/, 'expected digits') }),
  query: z.object({ dryRun: z.enum(['true', 'false']).optional() }),
  body: z.strictObject({ name: z.string().min(1), size: z.number().int().positive(), owner: z.object({ email: z.email() }) }),
  responses: { 201: { description: 'created' } },
});

const handle = vi.fn(async (request: { body: unknown; params: unknown }) => ({ status: 201, body: { echo: request.body, params: request.params } }));
const handler = httpHandler(thingEndpoint, handle as never);

const post = (body: string | undefined, headers: Record<string, string> = { 'content-type': 'application/json' }, params = { id: '42' }) =>
  handler(apiGatewayEvent({ method: 'POST', path: `/things/${params.id}`, headers, body, params }), lambdaContext());

const json = (response: { body?: string }) => JSON.parse(response.body ?? 'null');
const valid = JSON.stringify({ name: 'n', size: 1, owner: { email: 'a@b.test' } });

describe('the shared HTTP stack', () => {
  it('passes validated input to the handler and serialises its answer', async () => {
    const response = await post(valid);
    expect(response.statusCode).toBe(201);
    expect(response.headers?.['content-type']).toBe('application/json');
    expect(json(response)).toEqual({ echo: { name: 'n', size: 1, owner: { email: 'a@b.test' } }, params: { id: '42' } });
  });

  it('answers malformed JSON with a 400 problem', async () => {
    const response = await post('{"name": ');
    expect(response.statusCode).toBe(400);
    expect(response.headers?.['content-type']).toBe('application/problem+json');
    expect(json(response)).toMatchObject({ status: 400, title: 'Bad Request', detail: expect.stringContaining('not valid JSON') });
  });

  it('answers a missing body with 400 and another content type with 415', async () => {
    expect((await post(undefined)).statusCode).toBe(400);
    const response = await post(valid, { 'content-type': 'text/plain' });
    expect(response.statusCode).toBe(415);
    expect(json(response).detail).toContain('text/plain');
  });

  it('accepts a mixed-case Content-Type header', async () => {
    expect((await post(valid, { 'Content-Type': 'application/json; charset=utf-8' })).statusCode).toBe(201);
  });

  it('lists every invalid field with its path, from path, query and body', async () => {
    const response = await handler(
      apiGatewayEvent({
        method: 'POST',
        path: '/things/x',
        headers: { 'content-type': 'application/json' },
        params: { id: 'x' },
        query: { dryRun: 'maybe' },
        body: JSON.stringify({ name: '', size: -1, owner: { email: 'nope' }, extra: true }),
      }),
      lambdaContext(),
    );
    expect(response.statusCode).toBe(400);
    const problem = json(response);
    expect(problem.errors.map((error: { path: string }) => error.path).sort()).toEqual(['extra', 'name', 'owner.email', 'path.id', 'query.dryRun', 'size']);
    expect(problem.errors.find((error: { path: string }) => error.path === 'extra').message).toBe('unknown field');
    expect(problem.detail).toContain('owner.email');
  });

  it('answers a body that is JSON but not an object with 400', async () => {
    expect((await post('[1,2]')).statusCode).toBe(400);
    expect((await post('"text"')).statusCode).toBe(400);
  });

  it('maps typed errors to their problem, with the members they carry', async () => {
    const failing = httpHandler(thingEndpoint, async () => {
      throw new Conflict('already exists', { existingId: '7' });
    });
    const response = await failing(
      apiGatewayEvent({ method: 'POST', path: '/things/1', headers: { 'content-type': 'application/json' }, params: { id: '1' }, body: valid }),
      lambdaContext(),
    );
    expect(response.statusCode).toBe(409);
    expect(json(response)).toMatchObject({ type: 'urn:problem-type:conflict', title: 'Conflict', status: 409, detail: 'already exists', existingId: '7' });
  });

  it.each([
    [new NotFoundError('no policy 7'), 404, { title: 'Not Found', detail: 'no policy 7' }],
    [new ConflictError('already exists', { existingId: '7' }), 409, { title: 'Conflict', existingId: '7' }],
    [
      new InvalidInput([{ path: 'cueScript', message: 'expected }', line: 2, column: 5 }]),
      400,
      {
        title: 'Invalid request',
        detail: 'The request has 1 invalid field: cueScript',
        errors: [{ path: 'cueScript', message: 'expected }', line: 2, column: 5 }],
      },
    ],
    [new UnprocessableInput('the provider check failed', { providerStatus: 401 }), 422, { title: 'Unprocessable Content', providerStatus: 401 }],
    [new Unavailable('no environment is known yet', { retryable: true }), 503, { title: 'Service Unavailable', retryable: true }],
    [new UpstreamError('the provider failed', { upstreamStatus: 500 }), 502, { title: 'Bad Gateway', upstreamStatus: 500 }],
    [new UpstreamError('the provider did not answer', { timeout: true }), 504, { title: 'Gateway Timeout' }],
  ])('answers the domain error %s with its problem document', async (error, status, members) => {
    const failing = httpHandler(thingEndpoint, async () => {
      throw error;
    });
    const response = await failing(
      apiGatewayEvent({ method: 'POST', path: '/things/1', headers: { 'content-type': 'application/json' }, params: { id: '1' }, body: valid }),
      lambdaContext(),
    );
    expect(response.statusCode).toBe(status);
    expect(response.headers?.['content-type']).toBe('application/problem+json');
    expect(json(response)).toMatchObject({ status, detail: error.message, ...members });
  });

  it('answers an unexpected error with a 500 that shows no internals, and logs it with the request id', async () => {
    const requestLog = { info: vi.fn(), warn: vi.fn(), error: vi.fn() };
    const logged = vi.spyOn(logger, 'child').mockReturnValue(requestLog as never);
    const failing = httpHandler(thingEndpoint, async () => {
      throw new Error('connection to 10.0.0.7 refused; password=hunter2');
    });
    const response = await failing(
      apiGatewayEvent({ method: 'POST', path: '/things/1', headers: { 'content-type': 'application/json' }, params: { id: '1' }, body: valid }),
      lambdaContext('invocation-7'),
    );
    expect(response.statusCode).toBe(500);
    expect(response.body).not.toContain('10.0.0.7');
    expect(response.body).not.toContain('hunter2');
    expect(json(response)).toMatchObject({ status: 500, requestId: 'invocation-7' });
    expect(logged).toHaveBeenCalledWith({ requestId: 'invocation-7' });
    expect(requestLog.error).toHaveBeenCalledWith({ err: expect.objectContaining({ message: expect.stringContaining('10.0.0.7') }) }, 'unexpected error');
    logged.mockRestore();
  });

  it('answers 504 and aborts the work a second before the function would time out', async () => {
    let aborted = false;
    const slow = httpHandler(
      thingEndpoint,
      ({ signal }) =>
        new Promise((resolve) => {
          signal.addEventListener('abort', () => {
            aborted = true;
            resolve({ status: 201 });
          });
        }),
    );
    const context = { ...lambdaContext(), getRemainingTimeInMillis: () => 1050 };
    const response = await slow(
      apiGatewayEvent({ method: 'POST', path: '/things/1', headers: { 'content-type': 'application/json' }, params: { id: '1' }, body: valid }),
      context,
    );
    expect(response.statusCode).toBe(504);
    expect(json(response)).toMatchObject({ status: 504, detail: expect.stringContaining('time limit') });
    expect(aborted).toBe(true);
  });

  it('rejects a NUL character anywhere in the body with a 400 naming where', async () => {
    const response = await post(JSON.stringify({ name: 'a\u0000b', size: 1, owner: { email: 'a@b.test' } }));
    expect(response.statusCode).toBe(400);
    expect(json(response).errors).toEqual([{ path: 'name', message: 'must not hold a NUL character (U+0000)' }]);
    expect(handle).not.toHaveBeenCalledWith(expect.objectContaining({ body: expect.objectContaining({ name: 'a\u0000b' }) }));
  });

  it('rejects text the database cannot store in the path, the query, the body and its keys, naming the field', async () => {
    const calls = handle.mock.calls.length;
    const sent = async (event: Parameters<typeof apiGatewayEvent>[0]) => json(await handler(apiGatewayEvent(event), lambdaContext()));
    const base = { method: 'POST', path: '/things/42', headers: { 'content-type': 'application/json' }, body: valid, params: { id: '42' } };
    expect((await sent({ ...base, query: { dryRun: 'tr\u0000ue' } })).errors).toEqual([
      { path: 'query.dryRun', message: 'must not hold a NUL character (U+0000)' },
    ]);
    expect((await sent({ ...base, params: { id: '4\u00002' } })).errors).toEqual([{ path: 'path.id', message: 'must not hold a NUL character (U+0000)' }]);
    // JSON.stringify writes a lone surrogate as the escape "\ud800", as a client would send it.
    expect((await sent({ ...base, body: JSON.stringify({ name: 'a\ud800', size: 1, owner: { email: 'a@b.test' } }) })).errors).toEqual([
      { path: 'name', message: 'must not hold an unpaired UTF-16 surrogate (not valid Unicode)' },
    ]);
    expect((await sent({ ...base, body: '{"name": "n", "size": 1, "owner": {"email": "a@b.test", "\\udc00x": 1}}' })).errors).toEqual([
      { path: 'owner.\udc00x', message: 'the key must not hold an unpaired UTF-16 surrogate (not valid Unicode)' },
    ]);
    expect(handle.mock.calls.length).toBe(calls);
  });

  it('refuses a body nested deeper than 100 levels with a 400, before parsing or walking it', async () => {
    const response = await post(`{"name": ${'['.repeat(100_000)}${']'.repeat(100_000)}}`);
    expect(response.statusCode).toBe(400);
    expect(json(response).detail).toBe('The request body nests arrays and objects deeper than 100 levels');
    const shallow = await post(JSON.stringify({ name: JSON.parse(`${'['.repeat(99)}${']'.repeat(99)}`), size: 1, owner: { email: 'a@b.test' } }));
    expect(shallow.statusCode).toBe(400);
    expect(json(shallow).errors).toEqual([{ path: 'name', message: expect.any(String) }]);
  });

  it("echoes the request id: the caller's when sane, else the invocation's", async () => {
    const own = await post(valid, { 'content-type': 'application/json', 'x-request-id': 'abc-123' });
    expect(own.headers?.['x-request-id']).toBe('abc-123');
    const generated = await post(valid, { 'content-type': 'application/json', 'x-request-id': 'bad id with spaces' });
    expect(generated.headers?.['x-request-id']).toBe('lambda-invocation-id');
  });
});
