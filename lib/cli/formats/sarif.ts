import type { CheckRun } from '#lib/api/check-results';
import { locatedErrors } from '#lib/api/located-errors';

// A waived result (an active exception, `cgp evaluate`) is a note: it keeps its errors but passes.
const LEVEL = { ok: 'none', waived: 'note', info: 'note', warning: 'warning', error: 'error', failed: 'error' } as const;

/** A path as a SARIF artifact URI: forward slashes, relative paths kept relative (to %SRCROOT%). */
const artifactUri = (file: string) => encodeURI(file.split('\\').join('/')).replace(/#/g, '%23');

/**
 * SARIF 2.1.0 for code scanning: one rule per policy, one result per error, located on the line of
 * the descriptor that its CUE path names.
 */
export function formatSarif(run: CheckRun, version: string): string {
  const rules = [...new Map(run.results.map((result) => [result.policy.ref, result.policy])).values()];
  const ruleIndex = new Map(rules.map((rule, index) => [rule.ref, index]));
  const results = run.results
    .filter((result) => result.outcome !== 'ok')
    .flatMap((result) =>
      locatedErrors(result).map(({ message, position }) => ({
        ruleId: result.policy.ref,
        ruleIndex: ruleIndex.get(result.policy.ref),
        level: LEVEL[result.outcome],
        kind: 'fail',
        message: { text: message },
        locations: [
          {
            physicalLocation: {
              artifactLocation: { uri: artifactUri(result.descriptor.file), uriBaseId: '%SRCROOT%' },
              region: { startLine: position.line, startColumn: position.column },
            },
          },
        ],
        properties: { outcome: result.outcome },
      })),
    );
  const log = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'cgp',
            version,
            rules: rules.map((rule) => ({
              id: rule.ref,
              name: rule.name,
              shortDescription: { text: `${rule.kind} ${rule.name}` },
              defaultConfiguration: { level: LEVEL[rule.severity] },
              properties: { kind: rule.kind, severity: rule.severity },
            })),
          },
        },
        results,
      },
    ],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
}
