import { type CheckResult, type CheckRun, isFailing } from '#lib/api/check-results';

// XML 1.0 forbids these characters, even escaped.
// eslint-disable-next-line no-control-regex -- they are what it removes
const FORBIDDEN_IN_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g;

const escapeXml = (text: string) =>
  text.replace(FORBIDDEN_IN_XML, '').replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c] ?? c);

function testcase(result: CheckResult): string {
  const open = `    <testcase classname="${escapeXml(result.policy.name)}" name="${escapeXml(result.descriptor.file)}">`;
  const body = result.errors.join('\n');
  if (result.outcome === 'failed')
    return `${open}\n      <error message="${escapeXml(result.errors[0] ?? 'failed')}" type="failed">${escapeXml(body)}</error>\n    </testcase>`;
  if (isFailing(result))
    return `${open}\n      <failure message="${escapeXml(result.errors[0] ?? result.outcome)}" type="${result.outcome}">${escapeXml(body)}</failure>\n    </testcase>`;
  if (result.outcome !== 'ok') return `${open}\n      <system-out>${escapeXml(`${result.outcome}: ${body}`)}</system-out>\n    </testcase>`;
  return `${open}</testcase>`;
}

/**
 * JUnit XML, for the CI systems that show test reports: one suite per policy, one test case per
 * descriptor; `error` and `failed` outcomes are a failure and an error, `info` and `warning` pass
 * with their messages as output.
 */
export function formatJunit(run: CheckRun): string {
  const suites = new Map<string, CheckResult[]>();
  for (const result of run.results) suites.set(result.policy.ref, [...(suites.get(result.policy.ref) ?? []), result]);
  const count = (results: readonly CheckResult[]) => ({
    tests: results.length,
    failures: results.filter((result) => result.outcome === 'error').length,
    errors: results.filter((result) => result.outcome === 'failed').length,
  });
  const attributes = ({ tests, failures, errors }: ReturnType<typeof count>) => `tests="${tests}" failures="${failures}" errors="${errors}"`;
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>', `<testsuites name="cgp" ${attributes(count(run.results))}>`];
  for (const results of suites.values()) {
    lines.push(`  <testsuite name="${escapeXml(results[0].policy.name)}" ${attributes(count(results))}>`, ...results.map(testcase), '  </testsuite>');
  }
  lines.push('</testsuites>');
  return `${lines.join('\n')}\n`;
}
