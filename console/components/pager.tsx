import { formatNumber } from '../format';
/** The list endpoints' `meta.pagination`. */
export interface Pagination {
  readonly limit: number;
  readonly offset: number;
  readonly total: number;
}

/** Previous / next over a list the API pages (only the page shown is loaded). */
export function Pager({ pagination, hrefOf }: { pagination: Pagination; hrefOf: (offset: number) => string }) {
  const { limit, offset, total } = pagination;
  const last = Math.min(offset + limit, total);
  return (
    <nav class="pager" aria-label="Pages">
      <span aria-live="polite">{total === 0 ? 'None' : `${formatNumber(offset + 1)}–${formatNumber(last)} of ${formatNumber(total)}`}</span>
      {offset > 0 ? (
        <a class="button" href={hrefOf(Math.max(0, offset - limit))} rel="prev">
          Previous
        </a>
      ) : null}
      {last < total ? (
        <a class="button" href={hrefOf(offset + limit)} rel="next">
          Next
        </a>
      ) : null}
    </nav>
  );
}
