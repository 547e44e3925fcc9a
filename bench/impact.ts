/**
 * Bench (k): the impact of a stricter version of an enabled CUE policy over 5,000 descriptors
 * (~4.7 KB each, pages of 50), through serverless offline, its local queue and an embedded
 * PostgreSQL: from the impact call to its report completed (resources per second, to set beside
 * bench (e), publish), the first read that compares and counts, and the time to page the newly
 * failing resources (pages of 1,000). Native evaluator. Run alone with `node --import tsx bench/impact.ts`.
 */
import { pathToFileURL } from 'node:url';

import { startBenchWorld } from './bench-world';
import { startResolver } from './publish-evaluation';

const RESOURCES = 5_000;
const PAGE = 50;

export async function benchImpact(): Promise<void> {
  const resolver = await startResolver();
  const world = await startBenchWorld(
    `computational-governance-platform.resource-types = [ { name = "dataproduct", configuration { resource-name = "id", resource-owner-field = "domain", batch-size = "${PAGE}" }, resolver-configuration { url = "${resolver.url}", path = "/resources" } } ]
computational-governance-platform.cue-config.evaluator = native`,
  );
  try {
    const ended = async (sql: string) => {
      for (;;) {
        const [{ status }] = await world.sql.unsafe(sql);
        if (status === 'completed' || status === 'failed') return status;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    // v1, enabled: a third of the descriptors (owner "Alice") fail it.
    const policy = await world.call<{ id: string }>('POST', '/policies', {
      name: 'owner is a login',
      resourceType: 'dataproduct',
      environment: 'production',
      engine: 'cue',
      cueScript: 'owner: string & =~"^[A-Za-z]+$"',
    });
    const { evaluationReportId } = await world.call<{ evaluationReportId: string }>('POST', `/policies/${policy.id}/publish`);
    await ended(`select status from bench.evaluation_reports where id = '${evaluationReportId}'`);
    // v2, stricter: lower case only, so the "Alice" third newly fails.
    await world.call('PUT', `/policies/${policy.id}`, {
      name: 'owner is a login',
      resourceType: 'dataproduct',
      environment: 'production',
      engine: 'cue',
      cueScript: 'owner: string & =~"^[a-z]+$"',
    });
    const started = performance.now();
    const { impactReportId } = await world.call<{ impactReportId: string }>('POST', `/policies/${policy.id}/impact`, {});
    const status = await ended(
      `select r.status from bench.evaluation_reports r join bench.impact_reports i on i.evaluation_report_id = r.id where i.id = '${impactReportId}'`,
    );
    const runMs = performance.now() - started;
    const counted = performance.now();
    const report = await world.call<{ counts: Record<string, number> }>('GET', `/impact-reports/${impactReportId}`);
    const countMs = performance.now() - counted;
    const paging = performance.now();
    let listed = 0;
    for (let after: string | null = null, first = true; first || after; first = false) {
      const page: { data: unknown[]; meta: { next: string | null } } = await world.call(
        'GET',
        `/impact-reports/${impactReportId}/resources?change=newlyFailing&limit=1000${after ? `&after=${after}` : ''}`,
      );
      listed += page.data.length;
      after = page.meta.next;
    }
    const pageMs = performance.now() - paging;
    if (status !== 'completed' || report.counts.newlyFailing !== listed)
      throw new Error(`unexpected impact: ${status} ${JSON.stringify(report.counts)}, ${listed} listed`);
    console.log(
      `(k) Impact of a stricter version, native, 1 CUE policy x ${RESOURCES} descriptors (${PAGE} per page): run completed after ${(runMs / 1000).toFixed(1)} s = ${(RESOURCES / (runMs / 1000)).toFixed(0)} resources/s; ` +
        `first read (compare and count) ${countMs.toFixed(0)} ms; ${listed} newly failing paged (1,000 per page) in ${pageMs.toFixed(0)} ms; counts ${JSON.stringify(report.counts)}`,
    );
  } finally {
    await world.stop();
    await resolver.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  await benchImpact();
}
