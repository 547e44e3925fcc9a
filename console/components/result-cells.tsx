import { entityPath, type Result } from '../api/results';
import { formatDateTime } from '../format';
import { href } from '../router';

/** The page of a resource: its id and environment name it. */
const resourceHref = (resource: Result['resource']) => href(`/resources/${encodeURIComponent(resource.environment)}/${encodeURIComponent(resource.id)}`);

export function ResourceLink({ resource }: { resource: Result['resource'] }) {
  return <a href={resourceHref(resource)}>{resource.displayName ?? resource.id}</a>;
}

/** The policy or metric of a result, by name once known, linking to its page. */
export function EntityLink({ result, names }: { result: Result; names?: Map<string, string> }) {
  return (
    <a href={href(entityPath(result))}>
      {names?.get(result.governanceEntityId) ?? result.governanceEntityId} v{result.governanceEntityVersion}
    </a>
  );
}

export function OutcomeBadge({ outcome }: { outcome: Result['outcome'] }) {
  return <span class={`outcome outcome-${outcome}`}>{outcome}</span>;
}

/** A result's errors, every one in full (a CUE error can span lines). */
export function ResultErrors({ errors }: { errors: readonly string[] }) {
  if (errors.length === 0) return <span class="none">none</span>;
  return (
    <ul class="result-errors">
      {errors.map((error, index) => (
        <li key={index}>
          <pre>{error}</pre>
        </li>
      ))}
    </ul>
  );
}

/** A moment of the API (ISO), in the browser's language and time zone. */
export const when = (iso: string) => <time dateTime={iso}>{formatDateTime(iso)}</time>;
