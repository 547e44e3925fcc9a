/** The platform answered with a problem (4xx, 5xx): its status, and the problem's words. */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** A problem+json body in one line: its detail, and the fields it names. */
export function problemText(status: number, body: unknown): string {
  const problem = (body ?? {}) as { title?: string; detail?: string; errors?: Array<{ path: string; message: string }> };
  const fields = (problem.errors ?? []).map((error) => `${error.path}: ${error.message}`).join('; ');
  return `${status} ${problem.title ?? ''}${problem.detail ? `: ${problem.detail}` : ''}${fields ? ` (${fields})` : ''}`.trim();
}
