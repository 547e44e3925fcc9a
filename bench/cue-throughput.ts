/**
 * Bench of the CUE engine on its own (WebAssembly workers, the default settings):
 *   (b) bulk: 1 policy x 1000 data product descriptors of ~4 KB in one `evaluate`, evaluations/s
 *   (c) the same descriptors the naive way, one `cue vet -c policy.cue descriptor.json` each, and the ratio
 *   (d) peak RSS of the process (the workers are threads of it)
 *   and 1 descriptor x 20 policies in one `evaluate`, warm: p50 / p95.
 * Run alone with `node --import tsx bench/cue-throughput.ts`, or through `npm run bench`.
 */
import { pathToFileURL } from 'node:url';

import YAML from 'yaml';

import { CueWorkerPool } from '#lib/governance/engines/cue/cue-worker-pool';
import { CueReferenceEvaluator } from '#lib/governance/engines/cue/reference-evaluator';
import type { EngineEntity, EngineResource } from '#lib/governance/engines/engine';

/** The defaults of cue-config (lib/settings/schema.ts). */
const DEFAULTS = { workers: 2, timeoutMs: 20_000, recycleAfterRuns: 200, maxOutputBytes: 16 * 1024 * 1024 };
const BULK = 1000;
const NAIVE_SAMPLE = 200;
const LATENCY_SAMPLES = 40;

const column = (name: string, n: number) => ({
  name: `column_${n}`,
  dataType: ['STRING', 'INTEGER', 'DATE', 'DECIMAL'][n % 4],
  description: `Column ${n} of ${name}, documented for its consumers`,
  constraint: n === 0 ? 'PRIMARY_KEY' : 'NULLABLE',
});

/**
 * A data product descriptor of ~4 KB, written as YAML and parsed back as the platform sends it.
 * One in ten has a bad version, one an output port without schema (both conflicts), one no
 * owner e-mail (a missing field); the other seven comply with PRODUCT_POLICY.
 */
export function productDescriptor(i: number): unknown {
  const domain = ['finance', 'sales', 'marketing', 'hr'][i % 4];
  const name = `product-${i}`;
  const flaw = i % 10;
  const descriptor: Record<string, unknown> = {
    id: `urn:dmb:dp:${domain}:${name}:0`,
    name,
    fullyQualifiedName: `${domain} ${name}`,
    description: `The ${name} data product of the ${domain} domain: daily figures, curated and documented.`,
    kind: 'dataproduct',
    domain: `urn:dmb:dmn:${domain}`,
    version: flaw === 7 ? 'v1' : `0.${i % 10}.0`,
    environment: 'development',
    dataProductOwner: 'user:john.doe_company.com',
    dataProductOwnerDisplayName: 'John Doe',
    email: 'john.doe@company.com',
    ownerGroup: `group:${domain}`,
    devGroup: 'group:developers',
    informationSLA: '2BD',
    status: 'Draft',
    maturity: 'Tactical',
    billing: {},
    tags: [{ tagFQN: 'PII', source: 'Tag', labelType: 'Manual', state: 'Confirmed' }],
    specific: {},
    components: [
      {
        kind: 'outputport',
        id: `urn:dmb:cmp:${domain}:${name}:0:sql-output`,
        name: 'SQL Output',
        fullyQualifiedName: 'SQL Output Port',
        description: 'Curated view',
        version: '0.0.0',
        infrastructureTemplateId: 'urn:dmb:itm:snowflake-outputport-provisioner:0',
        useCaseTemplateId: 'urn:dmb:utm:snowflake-outputport-template:0.0.0',
        dependsOn: [`urn:dmb:cmp:${domain}:${name}:0:storage`],
        platform: 'Snowflake',
        technology: 'Snowflake',
        outputPortType: 'SQL',
        creationDate: '2023-01-10T10:00:00Z',
        processDescription: 'Daily batch',
        dataContract: {
          schema: flaw === 8 ? [] : [0, 1, 2, 3, 4, 5].map((n) => column(name, n)),
          SLA: { intervalOfChange: '1 day', timeliness: '1 day', upTime: '99.9%' },
          termsAndConditions: 'Internal use only',
          endpoint: null,
        },
        dataSharingAgreement: {
          purpose: 'Reporting',
          billing: 'None',
          security: 'Role based',
          intendedUsage: 'Analytics',
          limitations: 'None',
          lifeCycle: 'Yearly review',
          confidentiality: 'Internal',
        },
        tags: [],
        sampleData: {},
        semanticLinking: [],
        specific: { viewName: `${name}_view`, database: domain.toUpperCase(), schema: 'PUBLIC' },
      },
      {
        kind: 'workload',
        id: `urn:dmb:cmp:${domain}:${name}:0:etl`,
        name: 'ETL',
        fullyQualifiedName: 'ETL workload',
        description: 'Loads the figures',
        version: '0.0.0',
        infrastructureTemplateId: 'urn:dmb:itm:airflow-provisioner:0',
        useCaseTemplateId: 'urn:dmb:utm:airflow-template:0.0.0',
        dependsOn: [],
        platform: 'AWS',
        technology: 'Airflow',
        workloadType: 'batch',
        connectionType: 'DataPipeline',
        tags: [],
        readsFrom: ['s3://landing/raw'],
        specific: { dag: `${name}_dag`, schedule: '0 2 * * *', bucket: 'airflow-dags' },
      },
      {
        kind: 'storage',
        id: `urn:dmb:cmp:${domain}:${name}:0:storage`,
        name: 'Storage',
        fullyQualifiedName: 'Storage area',
        description: 'Tables',
        version: '0.0.0',
        infrastructureTemplateId: 'urn:dmb:itm:snowflake-storage-provisioner:0',
        useCaseTemplateId: 'urn:dmb:utm:snowflake-storage-template:0.0.0',
        dependsOn: [],
        platform: 'Snowflake',
        technology: 'Snowflake',
        StorageType: 'Database',
        tags: [],
        specific: {
          database: domain.toUpperCase(),
          schema: 'PUBLIC',
          tables: [{ tableName: `${name}_facts`, schema: [0, 1, 2, 3].map((n) => column(name, n)) }],
        },
      },
    ],
  };
  if (flaw === 9) delete descriptor.email;
  return YAML.parse(YAML.stringify(descriptor));
}

/** Rules of the kind governance teams write: required fields, formats, enumerations, per-component checks. */
export const PRODUCT_POLICY = `package governance

import "strings"

id:               =~"^urn:dmb:dp:[a-z]+:[a-z0-9-]+:[0-9]+$"
name:             string & strings.MinRunes(3)
version:          =~"^[0-9]+\\\\.[0-9]+\\\\.[0-9]+$"
email:            =~"^[^@]+@[^@]+$"
kind:             "dataproduct"
domain:           string
dataProductOwner: =~"^user:"
components: [..._component]

_component: {
	kind:        "outputport" | "workload" | "storage"
	id:          string
	name:        string
	description: string
	if kind == "outputport" {
		dataContract: schema: [_column, ..._column]
	}
}
_column: {name: string, dataType: string}
`;

/** Twenty single-rule policies for the latency of one descriptor against many policies. */
export const SMALL_POLICIES = [
  'id: =~"^urn:dmb:dp:"',
  'name: string & !=""',
  'version: =~"^[0-9]+\\\\.[0-9]+\\\\.[0-9]+$"',
  'email: =~"@"',
  'kind: "dataproduct"',
  'domain: =~"^urn:dmb:dmn:"',
  'environment: "development" | "qa" | "production"',
  'dataProductOwner: =~"^user:"',
  'ownerGroup: =~"^group:"',
  'informationSLA: string',
  'status: "Draft" | "Published"',
  'maturity: "Tactical" | "Strategic"',
  'tags: [...{tagFQN: string, ...}]',
  'components: [...{kind: "outputport" | "workload" | "storage", ...}]',
  'components: [...{id: =~"^urn:dmb:cmp:", ...}]',
  'components: [...{description: string, ...}]',
  'components: [...{version: =~"^[0-9]+\\\\.[0-9]+\\\\.[0-9]+$", ...}]',
  'components: [...{dependsOn: [...string], ...}]',
  'import "strings"\nname: strings.MaxRunes(64)',
  'import "list"\ncomponents: list.MaxItems(20)',
];

export const policyEntity = (id: string, cueScript: string): EngineEntity => ({
  id,
  version: 1,
  kind: 'policy',
  engine: 'cue',
  cueScript,
  requireConcrete: true,
  remoteEngineUrl: null,
});
const asResource = (descriptor: unknown, i: number): EngineResource => ({
  id: `dp-${i}`,
  resourceType: 'dataproduct',
  descriptor,
  content: JSON.stringify(descriptor),
});
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const mb = (bytes: number) => Math.round(bytes / (1024 * 1024));

export interface CueThroughput {
  readonly bulkPerSecond: number;
  readonly naivePerSecond: number;
  readonly ratio: number;
  readonly rssBeforeMb: number;
  readonly peakRssMb: number;
  readonly manyPoliciesP50Ms: number;
  readonly manyPoliciesP95Ms: number;
}

export async function cueThroughput(log: (line: string) => void = console.log): Promise<CueThroughput> {
  const resources = Array.from({ length: BULK }, (_, i) => asResource(productDescriptor(i), i));
  const rssBefore = process.memoryUsage().rss;
  let peakRss = rssBefore;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 25);
  const pool = new CueWorkerPool(DEFAULTS);
  const engine = new CueReferenceEvaluator(pool);
  try {
    const bytes = resources.reduce((sum, resource) => sum + resource.content.length, 0);
    const policy = policyEntity('product', PRODUCT_POLICY);
    await engine.evaluate([policy], resources.slice(0, 4)); // warm: every worker has compiled CUE

    let started = performance.now();
    const [bulk] = await engine.evaluate([policy], resources);
    const bulkSeconds = (performance.now() - started) / 1000;
    const failing = bulk.filter((result) => !result.satisfiesPolicy).length;
    if (bulk.some((result) => result.isError) || failing !== BULK * 0.3)
      throw new Error(`unexpected verdicts: ${failing} failing, ${bulk.filter((result) => result.isError).length} errors`);
    const bulkPerSecond = BULK / bulkSeconds;
    log(
      `(b) bulk: 1 policy x ${BULK} descriptors (avg ${Math.round(bytes / BULK)} bytes of JSON, 30% failing) in ${bulkSeconds.toFixed(2)} s: ${bulkPerSecond.toFixed(0)} evaluations/s`,
    );

    // The naive way: one `cue vet -c` per descriptor, on the same pool (both workers busy).
    started = performance.now();
    await Promise.all(
      resources
        .slice(0, NAIVE_SAMPLE)
        .map((resource) =>
          pool.run({ args: ['vet', '-c', 'policy.cue', 'descriptor.json'], files: { 'policy.cue': PRODUCT_POLICY, 'descriptor.json': resource.content } }),
        ),
    );
    const naivePerSecond = NAIVE_SAMPLE / ((performance.now() - started) / 1000);
    log(
      `(c) naive: one cue vet -c per descriptor (${NAIVE_SAMPLE} of them): ${naivePerSecond.toFixed(0)} evaluations/s; bulk is ${(bulkPerSecond / naivePerSecond).toFixed(1)}x faster`,
    );

    const policies = SMALL_POLICIES.map((script, i) => policyEntity(`rule-${i}`, script));
    const latencies: number[] = [];
    for (let sample = 0; sample < LATENCY_SAMPLES + 3; sample++) {
      started = performance.now();
      const results = await engine.evaluate(policies, [resources[sample % 7]]);
      if (results.some(([result]) => !result.satisfiesPolicy))
        throw new Error(`a compliant descriptor failed: ${JSON.stringify(results.find(([result]) => !result.satisfiesPolicy))}`);
      if (sample >= 3) latencies.push(performance.now() - started);
    }
    latencies.sort((a, b) => a - b);
    const [p50, p95] = [percentile(latencies, 50), percentile(latencies, 95)];
    log(`1 descriptor x ${SMALL_POLICIES.length} policies, warm, ${LATENCY_SAMPLES} samples: p50 ${p50.toFixed(0)} ms, p95 ${p95.toFixed(0)} ms`);
    log(
      `(d) peak RSS of the process: ${mb(peakRss)} MB; ${mb(rssBefore)} MB with the descriptors built, before the pool started, so the pool of ${DEFAULTS.workers} workers (threads of the process) took ${mb(peakRss - rssBefore)} MB at most`,
    );
    return {
      bulkPerSecond,
      naivePerSecond,
      ratio: bulkPerSecond / naivePerSecond,
      rssBeforeMb: mb(rssBefore),
      peakRssMb: mb(peakRss),
      manyPoliciesP50Ms: p50,
      manyPoliciesP95Ms: p95,
    };
  } finally {
    clearInterval(sampler);
    await engine.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await cueThroughput();
