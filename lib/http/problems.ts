import type { FieldError } from '#lib/errors/domain-errors';

export type { FieldError };

/**
 * An error that answers the request with an RFC 9457 problem document. The HTTP stack (lib/http,
 * functions/) throws these; the domain throws lib/errors/domain-errors.ts, which
 * lib/http/domain-problems.ts maps to these. lib/http/problem-response.ts turns one into the response.
 */
export class HttpProblem extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    detail: string,
    readonly extra: { errors?: FieldError[]; headers?: Record<string, string>; members?: Record<string, unknown> } = {},
  ) {
    super(detail);
    this.name = new.target.name;
  }
}

export class BadRequest extends HttpProblem {
  constructor(detail: string, errors?: FieldError[]) {
    super(400, 'Bad Request', detail, { errors });
  }
}

export class Invalid extends HttpProblem {
  constructor(
    errors: FieldError[],
    detail = `The request has ${errors.length} invalid field${errors.length === 1 ? '' : 's'}: ${errors.map((e) => e.path || '(body)').join(', ')}`,
  ) {
    super(400, 'Invalid request', detail, { errors });
  }
}

export class Unauthorized extends HttpProblem {
  constructor(detail = 'Valid credentials are required', challenge = 'Bearer') {
    super(401, 'Unauthorized', detail, { headers: { 'www-authenticate': challenge } });
  }
}

export class Forbidden extends HttpProblem {
  constructor(detail: string, members?: Record<string, unknown>) {
    super(403, 'Forbidden', detail, { members });
  }
}

export class NotFound extends HttpProblem {
  constructor(detail: string) {
    super(404, 'Not Found', detail);
  }
}

export class Conflict extends HttpProblem {
  constructor(detail: string, members?: Record<string, unknown>) {
    super(409, 'Conflict', detail, { members });
  }
}

export class UnsupportedMediaType extends HttpProblem {
  constructor(detail: string) {
    super(415, 'Unsupported Media Type', detail);
  }
}

export class ContentTooLarge extends HttpProblem {
  constructor(detail: string) {
    super(413, 'Content Too Large', detail);
  }
}

export class Unprocessable extends HttpProblem {
  constructor(detail: string, members?: Record<string, unknown>) {
    super(422, 'Unprocessable Content', detail, { members });
  }
}

/** An outside service (LLM provider, remote engine, resolver, platform) failed: 502, or 504 on a timeout. */
export class UpstreamFailure extends HttpProblem {
  constructor(detail: string, options: { timeout?: boolean; upstreamStatus?: number } = {}) {
    super(options.timeout ? 504 : 502, options.timeout ? 'Gateway Timeout' : 'Bad Gateway', detail, {
      members: options.upstreamStatus === undefined ? undefined : { upstreamStatus: options.upstreamStatus },
    });
  }
}

export class ServiceUnavailable extends HttpProblem {
  constructor(detail: string, members?: Record<string, unknown>) {
    super(503, 'Service Unavailable', detail, { members });
  }
}
