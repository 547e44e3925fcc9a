import { spawnSync } from 'node:child_process';

import { describe, expect, inject, it } from 'vitest';

import { readPackageState, rehearseDeploy } from '../../scripts/deploy-rehearsal';
import { readTemplate, resourcesOf } from '../../scripts/deploy-rehearsal-checks';

const packageDir = inject('packageDir');

// moto is a Python package (pip install 'moto[server]'), not one of this project's: where it is missing, say so.
const motoMissing = spawnSync('moto_server', ['--help'], { stdio: 'ignore' }).status !== 0;
if (motoMissing) console.log('deploy rehearsal skipped: moto_server (pip install "moto[server]") is not on PATH');

describe('npm run deploy:rehearse', () => {
  it.skipIf(motoMissing)(
    "deploys the e2e package to moto with serverless deploy, answers the DatabaseSchema custom resource with the packaged startup function, finds the template's resources in moto, and removes the stack",
    async () => {
      const { stage } = readPackageState(packageDir);
      const lines: string[] = [];
      const rehearsal = await rehearseDeploy({ packageDir, stage, databaseUrl: inject('databaseUrl'), log: (line) => lines.push(line) });
      expect(rehearsal.failures, lines.join('\n')).toEqual([]);

      // The startup function's SUCCESS reached moto, and its migrations the schema.
      expect(rehearsal.status.answered).toBe('CREATE_COMPLETE');
      expect(rehearsal.schema?.tables).toBeGreaterThan(10);
      expect(rehearsal.schema?.migrations).toBe(rehearsal.schema?.shipped);

      const template = readTemplate(packageDir);
      const functions = resourcesOf(template, 'AWS::Lambda::Function').map(([, fn]) => fn.FunctionName);
      const name = (suffix: string) => `computational-governance-platform-${stage}-${suffix}`;
      const deployed = rehearsal.deployed;
      expect(deployed?.functions).toEqual([...functions].sort());
      expect(deployed?.layers).toHaveLength(1);
      expect(deployed?.queues).toEqual({
        EvaluationQueue: { visibilityTimeout: 720, redrive: { maxReceiveCount: 5, deadLetterQueue: name('evaluation-tasks-dead-letters') } },
        EvaluationDeadLetterQueue: { visibilityTimeout: 360 },
      });
      expect(deployed?.eventSourceMappings).toEqual(
        expect.arrayContaining([
          { function: name('evaluation-worker'), queue: name('evaluation-tasks'), batchSize: 1 },
          { function: name('dead-letters'), queue: name('evaluation-tasks-dead-letters'), batchSize: 10 },
        ]),
      );
      expect(deployed?.eventSourceMappings).toHaveLength(2);
      expect(deployed?.schedules).toHaveLength(8);
      expect(deployed?.schedules).toEqual(
        expect.arrayContaining([
          { function: name('evaluation-sweeper'), expression: 'rate(1 minute)' },
          { function: name('cron-dispatcher'), expression: 'rate(1 minute)' },
          { function: name('compliance-snapshot'), expression: 'rate(1 hour)' },
        ]),
      );
      expect(deployed?.topics.map((arn) => arn.split(':').at(-1))).toEqual([name('alarms')]);
      expect(deployed?.dashboards.map((dashboard) => dashboard.name)).toEqual([`computational-governance-platform-${stage}`]);
      // Moto does not model these: counted in the template (every function's errors and throttles at least).
      expect(deployed?.checkpointBucket).toEqual({ mode: 'COMPLIANCE', days: 400 });
      expect(deployed?.fromTemplateOnly.routes).toBeGreaterThan(0);
      expect(deployed?.fromTemplateOnly.alarms).toBeGreaterThanOrEqual(2 * functions.length);

      expect(rehearsal.removed).toEqual({ stackGone: true, left: [] });
      const seconds = Object.entries(rehearsal.durations).map(([step, ms]) => `${step} ${(ms / 1000).toFixed(1)} s`);
      console.log(`deploy rehearsal: ${rehearsal.checks.length} checks passed (${seconds.join(', ')})`);
    },
    300_000,
  );
});
