import { useState } from 'preact/hooks';

import { testEntity, type TestInput } from '../api/entities';
import type { EntityCollection } from '../api/governance';
import { SelectField, TextAreaField } from './fields';
import { ProblemNotice } from './problem';
import { ReportProgress } from './report-progress';

/** How long the API is asked to wait for a descriptor's verdict (a perimeter's report is followed instead). */
const DESCRIPTOR_WAIT_SECONDS = 20;

interface EntityTestProps {
  readonly collection: EntityCollection;
  readonly id: string;
  readonly version: number;
  /** The environments offered (the entity's own when it has one). */
  readonly environments: readonly string[];
  /** A pasted descriptor (YAML or JSON), or every resource of the environment. */
  readonly on: 'descriptor' | 'perimeter';
  /** Where the report goes: shown here, or handed to the page (the perimeter's is kept in the address). */
  readonly onReport?: (reportId: string) => void;
}

/** "Test" a version on a pasted descriptor, or "Test on the perimeter" of an environment: a dry run, nothing recorded. */
export function EntityTest({ collection, id, version, environments, on, onReport }: EntityTestProps) {
  const [error, setError] = useState<unknown>();
  const [reportId, setReportId] = useState<string>();
  const [running, setRunning] = useState(false);
  const prefix = on === 'descriptor' ? 'test' : 'perimeter';

  const submit = async (event: Event) => {
    event.preventDefault();
    const values = new FormData(event.currentTarget as HTMLFormElement);
    const input: TestInput = {
      environment: String(values.get(`${prefix}-environment`) ?? ''),
      ...(on === 'descriptor' ? { descriptor: String(values.get('test-descriptor') ?? '') } : {}),
    };
    setRunning(true);
    setError(undefined);
    setReportId(undefined);
    try {
      const answer = await testEntity(collection, id, version, input, on === 'descriptor' ? DESCRIPTOR_WAIT_SECONDS : 0);
      const started = 'reportId' in answer ? answer.reportId : answer.id;
      if (onReport) onReport(started);
      else setReportId(started);
    } catch (failure) {
      setError(failure);
    } finally {
      setRunning(false);
    }
  };

  return (
    <section class="entity-test" aria-labelledby={`${prefix}-heading`}>
      <h2 id={`${prefix}-heading`}>{on === 'descriptor' ? `Test version ${version} on a descriptor` : 'Test on the perimeter'}</h2>
      <form onSubmit={submit}>
        <SelectField
          name={`${prefix}-environment`}
          label="Environment"
          defaultValue={environments[0] ?? ''}
          options={environments}
          error={error}
          errorPath="environment"
        />
        {on === 'descriptor' ? (
          <TextAreaField name="test-descriptor" label="Descriptor (YAML or JSON)" rows={8} defaultValue="" error={error} errorPath="descriptor" />
        ) : null}
        <button type="submit" disabled={running}>
          {on === 'descriptor' ? 'Test' : 'Test on the perimeter'}
        </button>
      </form>
      <ProblemNotice error={error} />
      {reportId ? <ReportProgress id={reportId} title="Test result" /> : null}
    </section>
  );
}
