/** The name metrics (their `service` dimension) and traces (their `Service` annotation) give the service. */
export const SERVICE_NAME = 'computational-governance-platform';
