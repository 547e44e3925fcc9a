import { listExceptionsEndpoint } from '#lib/governance/exceptions/endpoints';
import type { GovernanceException } from '#lib/governance/exceptions/exception';

import { type ApiAccess, ApiClient } from './api-client';

export interface ExceptionFilterOptions {
  readonly policy?: string;
  readonly resource?: string;
  readonly env?: string;
  /** true: only the active ones; false: only the expired. */
  readonly active?: boolean;
}

/** `cgp exceptions`: every exception the filters keep, newest first, as the API lists them. */
export async function listExceptions(options: ExceptionFilterOptions & ApiAccess): Promise<GovernanceException[]> {
  return new ApiClient(options).list(listExceptionsEndpoint, {
    query: { policyId: options.policy, resourceId: options.resource, environment: options.env, active: options.active },
  });
}

/** The exceptions as a table: what is waived, where, until when, and why. */
export function exceptionsTable(exceptions: readonly GovernanceException[]): string {
  const rows = exceptions.map((exception) => [
    exception.active ? 'active' : 'expired',
    exception.policyId ? `policy ${exception.policyId}` : `metric ${exception.metricId ?? ''}`,
    exception.resourceId,
    exception.environment ?? '(all)',
    exception.expiresAt,
    exception.ticket ?? '',
    exception.reason.replace(/\s+/g, ' '),
  ]);
  const header = ['STATE', 'POLICY OR METRIC', 'RESOURCE', 'ENVIRONMENT', 'EXPIRES', 'TICKET', 'REASON'];
  const widths = header.map((title, column) => Math.min(60, Math.max(title.length, ...rows.map((row) => row[column].length))));
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column])))
      .join('  ')
      .trimEnd();
  const active = exceptions.filter((exception) => exception.active).length;
  return `${[line(header), ...rows.map(line), '', `${exceptions.length} exceptions, ${active} active`].join('\n')}\n`;
}
