/**
 * The errors the domain (services, engines, descriptors, the assistant) throws, in its own words:
 * what went wrong, not how an HTTP answer says it. lib/http/domain-problems.ts maps each to its
 * problem document at the edge; the background runner, the assistant's tools and the command line
 * read them as they are.
 */

/** One bad field of an input: its JSON path and what is wrong with it. */
export interface FieldError {
  path: string;
  message: string;
  /** Where in the field's text the error is (1-based), when the field is a text with lines (a CUE script). */
  line?: number;
  column?: number;
}

export abstract class DomainError extends Error {
  constructor(detail: string) {
    super(detail);
    this.name = new.target.name;
  }
}

/** The thing asked for does not exist (or is not visible). */
export class NotFoundError extends DomainError {}

/** The thing exists but is in a state that refuses the change (a lifecycle move, a duplicate, a stale version). */
export class ConflictError extends DomainError {
  constructor(
    detail: string,
    readonly members?: Record<string, unknown>,
  ) {
    super(detail);
  }
}

/** The caller is known but may not do this: it lacks a permission where it acts, or four-eyes forbids it. */
export class ForbiddenError extends DomainError {
  constructor(
    detail: string,
    readonly members?: Record<string, unknown>,
  ) {
    super(detail);
  }
}

/** Input that breaks a rule, field by field. */
export class InvalidInput extends DomainError {
  constructor(
    readonly errors: FieldError[],
    detail = `The request has ${errors.length} invalid field${errors.length === 1 ? '' : 's'}: ${errors.map((e) => e.path || '(body)').join(', ')}`,
  ) {
    super(detail);
  }
}

/** Well-formed input the domain cannot act on (a provider check that failed). */
export class UnprocessableInput extends DomainError {
  constructor(
    detail: string,
    readonly members?: Record<string, unknown>,
  ) {
    super(detail);
  }
}

/** Something the domain needs is not ready here (no environment known yet, no encryption key, the console not built). */
export class Unavailable extends DomainError {
  constructor(
    detail: string,
    readonly members?: Record<string, unknown>,
  ) {
    super(detail);
  }
}

/** An outside service (LLM provider, remote engine, resolver, platform) failed, or did not answer in time. */
export class UpstreamError extends DomainError {
  constructor(
    detail: string,
    readonly options: { timeout?: boolean; upstreamStatus?: number } = {},
  ) {
    super(detail);
  }
}
