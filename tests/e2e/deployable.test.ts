import { spawnSync } from 'node:child_process';

import { describe, expect, inject, it } from 'vitest';

import { packagedTemplate, resourcesOf, templateFile } from '../support/packaged-template';
import { present } from '../support/present';

/**
 * The packaged stack is one AWS accepts (docs/deployment.md): within CloudFormation's limits with room
 * for the next endpoints, lint-clean by AWS's own linter, names within AWS's lengths for a stage of 10
 * characters (the e2e setup packages for one), and queues that Lambda may consume.
 */

const packageDir = inject('packageDir');
const stage = inject('packageStage');

/** CloudFormation refuses more than 500 resources in a stack; this fails well before, so that growth is noticed. */
const RESOURCE_CEILING = 400;

const cfnLint = spawnSync('cfn-lint', ['--version'], { encoding: 'utf8' });
const cfnLintMissing = cfnLint.error !== undefined || cfnLint.status !== 0;
if (cfnLintMissing) console.log(`cfn-lint is not installed here (${cfnLint.error?.message ?? cfnLint.stderr}): the template's lint is skipped`);

describe('the packaged stack', () => {
  it(`has at most ${RESOURCE_CEILING} resources, alarms included`, () => {
    const count = Object.keys(packagedTemplate(packageDir).Resources).length;
    console.log(`the packaged stack has ${count} resources`);
    expect(count).toBeLessThanOrEqual(RESOURCE_CEILING);
  });

  it.skipIf(cfnLintMissing)('passes cfn-lint without an error or a warning (moto and CloudFormation validate it the same way)', () => {
    const lint = spawnSync('cfn-lint', ['--format', 'parseable', '-t', templateFile(packageDir)], { encoding: 'utf8' });
    expect(lint.stderr).toBe('');
    expect(lint.stdout.split('\n').filter(Boolean)).toEqual([]);
    expect(lint.status).toBe(0);
  });

  it(`names every function <service>-<stage>-<name> within Lambda's 64 characters for a 10-character stage (${stage})`, () => {
    expect(stage).toHaveLength(10);
    for (const [key, fn] of resourcesOf(packageDir, 'AWS::Lambda::Function')) {
      expect(fn.FunctionName, key).toMatch(new RegExp(`^computational-governance-platform-${stage}-[a-z-]{1,19}$`));
      expect(fn.FunctionName.length, key).toBeLessThanOrEqual(64);
    }
    for (const [key, queue] of resourcesOf(packageDir, 'AWS::SQS::Queue')) expect(queue.QueueName.length, key).toBeLessThanOrEqual(80);
  });

  it("gives each queue a visibility timeout of at least six times its consumer's timeout, and keeps the dead-letter redrive", () => {
    const queues = Object.fromEntries(resourcesOf(packageDir, 'AWS::SQS::Queue'));
    const functions = Object.fromEntries(resourcesOf(packageDir, 'AWS::Lambda::Function'));
    const mappings = resourcesOf(packageDir, 'AWS::Lambda::EventSourceMapping');
    expect(mappings).toHaveLength(2);
    for (const [key, mapping] of mappings) {
      const queue = present(queues[mapping.EventSourceArn['Fn::GetAtt'][0]], `the queue of ${key}`);
      const consumer = present(functions[mapping.FunctionName['Fn::GetAtt'][0]], `the function of ${key}`);
      expect(queue.VisibilityTimeout, key).toBeGreaterThanOrEqual(6 * consumer.Timeout);
    }
    expect(queues.EvaluationQueue.RedrivePolicy).toEqual({ deadLetterTargetArn: { 'Fn::GetAtt': ['EvaluationDeadLetterQueue', 'Arn'] }, maxReceiveCount: 5 });
  });

  it('applies the schema on every deploy that changes the startup package, before any other function is updated', () => {
    const { Resources } = packagedTemplate(packageDir);
    const schema = Resources.DatabaseSchema as { Type: string; Properties: Record<string, unknown> };
    const startupVersion = Object.values(Resources).find(
      (resource) =>
        resource.Type === 'AWS::Lambda::Version' && (resource.Properties as { FunctionName: { Ref: string } }).FunctionName.Ref === 'StartupLambdaFunction',
    );
    expect(schema).toMatchObject({
      Type: 'Custom::DatabaseSchema',
      Properties: {
        ServiceToken: { 'Fn::GetAtt': ['StartupLambdaFunction', 'Arn'] },
        StartupCodeSha256: (startupVersion?.Properties as { CodeSha256: string }).CodeSha256,
      },
    });
    for (const [key] of resourcesOf(packageDir, 'AWS::Lambda::Function').filter(([name]) => name !== 'StartupLambdaFunction'))
      expect([Resources[key].DependsOn].flat(), key).toContain('DatabaseSchema');
  });
});
