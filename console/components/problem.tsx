import { ApiProblem } from '../api/client';

/** A failed call, as the API explained it: the problem's detail (role=alert, so it is announced). */
export function ProblemNotice({ error }: { error: unknown }) {
  if (!error) return null;
  const problem = error instanceof ApiProblem ? error : undefined;
  return (
    <div class="problem" role="alert">
      <strong>{problem?.title ?? 'Error'}</strong> {problem?.detail ?? String((error as Error).message ?? error)}
    </div>
  );
}

/** The messages of one field of a failed call, next to the field (the field names it in aria-describedby). */
export function FieldErrors({ id, error, path }: { id: string; error: unknown; path: string }) {
  const messages = error instanceof ApiProblem ? error.errorsOf(path) : [];
  if (messages.length === 0) return null;
  return (
    <span class="field-error" id={id}>
      {messages.join('; ')}
    </span>
  );
}
