/**
 * What the deploy rehearsal (scripts/deploy-rehearsal.ts) checks: that moto made, from the packaged
 * CloudFormation template, what the template asks for, each compared with the template; what moto
 * does not model, in the template only; and, after `serverless remove`, that it is gone.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';

import { CloudFormationClient, DescribeStackResourcesCommand, DescribeStacksCommand, GetTemplateCommand } from '@aws-sdk/client-cloudformation';
import { CloudWatchClient, GetDashboardCommand } from '@aws-sdk/client-cloudwatch';
import { DescribeRuleCommand, EventBridgeClient, ListTargetsByRuleCommand } from '@aws-sdk/client-eventbridge';
import {
  GetFunctionConfigurationCommand,
  GetLayerVersionCommand,
  LambdaClient,
  ListEventSourceMappingsCommand,
  ListLayersCommand,
  paginateListFunctions,
} from '@aws-sdk/client-lambda';
import { HeadBucketCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { GetQueueAttributesCommand, GetQueueUrlCommand, SQSClient } from '@aws-sdk/client-sqs';

type GetAtt = { 'Fn::GetAtt': [string, string] };
type Ref = { Ref: string };

/** What the checks read of the template's resources, by type. */
interface TemplateProperties {
  'AWS::Lambda::Function': { FunctionName: string; Handler: string; Runtime: string; Timeout: number; MemorySize: number; Code: { S3Key: string } };
  'AWS::Lambda::LayerVersion': { Description: string; CompatibleRuntimes: string[]; Content: { S3Key: string } };
  'AWS::SQS::Queue': {
    QueueName: string;
    VisibilityTimeout: number;
    MessageRetentionPeriod: number;
    RedrivePolicy?: { deadLetterTargetArn: GetAtt; maxReceiveCount: number };
  };
  'AWS::Lambda::EventSourceMapping': { EventSourceArn: GetAtt; FunctionName: GetAtt; BatchSize: number; FunctionResponseTypes: string[] };
  'AWS::Events::Rule': { ScheduleExpression: string; State: string; Targets: { Arn: GetAtt }[] };
  'AWS::SNS::Topic': { TopicName: string };
  'AWS::CloudWatch::Dashboard': { DashboardName: string; DashboardBody: { 'Fn::Sub': [string, unknown] } };
  'AWS::CloudWatch::Alarm': { AlarmActions: unknown[]; OKActions?: unknown[] };
  'AWS::ApiGatewayV2::Route': { Target: { 'Fn::Join': [string, [string, Ref]] } };
  'AWS::ApiGatewayV2::Integration': { IntegrationUri: GetAtt };
  'Custom::DatabaseSchema': Record<string, unknown>;
  'AWS::S3::Bucket': {
    ObjectLockEnabled?: boolean;
    ObjectLockConfiguration?: { ObjectLockEnabled: string; Rule: { DefaultRetention: { Mode: string; Days: number } } };
    VersioningConfiguration?: { Status: string };
  };
}

export interface Template {
  Resources: Record<string, { Type: string; Properties: unknown; DeletionPolicy?: string }>;
}

export const readTemplate = (packageDir: string): Template =>
  JSON.parse(readFileSync(path.join(packageDir, 'cloudformation-template-update-stack.json'), 'utf8')) as Template;

/** The resources of one type, as [logical id, properties]. */
export function resourcesOf<K extends keyof TemplateProperties>(template: Template, type: K): [string, TemplateProperties[K]][] {
  return Object.entries(template.Resources)
    .filter(([, resource]) => resource.Type === type)
    .map(([key, resource]) => [key, resource.Properties as TemplateProperties[K]]);
}

/**
 * The types moto 5.2.1's CloudFormation skips with a warning (absent from
 * moto.cloudformation.parsing.get_model_map()): what the template says of them is all there is to check.
 */
const UNMODELLED = [/^AWS::ApiGatewayV2::/, /^AWS::CloudWatch::Alarm$/, /^AWS::S3::BucketPolicy$/];
const modelledByMoto = (type: string) => !UNMODELLED.some((pattern) => pattern.test(type));

/** Moto takes any credentials; these can reach nothing else. */
export const MOTO_CREDENTIALS = { accessKeyId: 'testing', secretAccessKey: 'testing' };

export function motoClients(endpoint: string, region: string) {
  const config = { endpoint, region, credentials: MOTO_CREDENTIALS };
  return {
    endpoint,
    region,
    cloudFormation: new CloudFormationClient(config),
    lambda: new LambdaClient(config),
    sqs: new SQSClient(config),
    events: new EventBridgeClient(config),
    cloudWatch: new CloudWatchClient(config),
    s3: new S3Client({ ...config, forcePathStyle: true }),
  };
}
export type MotoClients = ReturnType<typeof motoClients>;

/** One check of the rehearsal: what it checked and, when it failed, what it found instead. */
export interface Check {
  readonly what: string;
  readonly failure?: string;
}

const shown = (value: unknown) => JSON.stringify(value);

/** The checks made so far, each logged as it is made. */
export class Checks {
  readonly made: Check[] = [];

  constructor(private readonly log: (line: string) => void) {}

  expect(what: string, failure?: string): boolean {
    this.made.push(failure === undefined ? { what } : { what, failure });
    this.log(failure === undefined ? `✔ ${what}` : `✘ ${what}: ${failure}`);
    return failure === undefined;
  }

  /** A line of what is not checked, and why. */
  note(line: string): void {
    this.log(line);
  }

  equal(what: string, actual: unknown, expected: unknown): boolean {
    return this.expect(what, isDeepStrictEqual(actual, expected) ? undefined : `expected ${shown(expected)}, found ${shown(actual)}`);
  }

  /** Runs a check that asks a server (moto, PostgreSQL): its error (a resource moto does not have) fails it. */
  async attempt(what: string, check: () => Promise<void>): Promise<void> {
    try {
      await check();
    } catch (error) {
      this.expect(what, error instanceof Error ? error.message : String(error));
    }
  }

  get failures(): string[] {
    return this.made.filter((check) => check.failure !== undefined).map((check) => `${check.what}: ${check.failure}`);
  }
}

/** What moto made of the template, in the terms the rehearsal's callers assert on. */
export interface Deployed {
  /** The names of the functions moto has. */
  functions: string[];
  /** The layer versions of the template moto published, under the names moto gave them. */
  layers: { name: string; version: number }[];
  queues: Record<string, { visibilityTimeout: number; redrive?: { maxReceiveCount: number; deadLetterQueue: string } }>;
  eventSourceMappings: { function: string; queue: string; batchSize: number }[];
  schedules: { function: string; expression: string }[];
  topics: string[];
  dashboards: { name: string; widgets: number }[];
  /** The audit checkpoints' bucket: the mode and days of its Object Lock's default retention (from the template). */
  checkpointBucket?: { mode?: string; days?: number };
  /** What moto does not model, counted in the template. */
  fromTemplateOnly: { routes: number; alarms: number };
}

/** The SHA-256 of a packaged artifact, as Lambda reports its code's (CodeSha256). */
const artifactSha256 = (packageDir: string, s3Key: string) =>
  createHash('sha256')
    .update(readFileSync(path.join(packageDir, path.basename(s3Key))))
    .digest('base64');

const nameOf = (arn: string | undefined) => arn?.split(':').at(-1) ?? '';

/**
 * SNS's ListTopics: no SNS client is installed here. Moto routes a request by the credential scope of
 * its Authorization header and checks no signature.
 */
async function listTopics(clients: MotoClients): Promise<string[]> {
  const response = await fetch(clients.endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `AWS4-HMAC-SHA256 Credential=${MOTO_CREDENTIALS.accessKeyId}/20000101/${clients.region}/sns/aws4_request, SignedHeaders=host, Signature=0`,
    },
    body: 'Action=ListTopics&Version=2010-03-31',
  });
  if (!response.ok) throw new Error(`SNS ListTopics answered ${response.status}`);
  return [...(await response.text()).matchAll(/<TopicArn>([^<]+)<\/TopicArn>/g)].map((match) => match[1]);
}

async function functionNames(clients: MotoClients): Promise<string[]> {
  const names: string[] = [];
  for await (const page of paginateListFunctions({ client: clients.lambda }, {})) names.push(...(page.Functions ?? []).map((fn) => fn.FunctionName ?? ''));
  return names.sort();
}

/** The stack's resources moto made, by logical id: their physical ids. */
export async function stackResources(clients: MotoClients, stackName: string): Promise<Map<string, string | undefined>> {
  const { StackResources = [] } = await clients.cloudFormation.send(new DescribeStackResourcesCommand({ StackName: stackName }));
  return new Map(StackResources.flatMap((resource) => (resource.LogicalResourceId ? [[resource.LogicalResourceId, resource.PhysicalResourceId]] : [])));
}

/**
 * Moto's stack has the package's template and every resource of it moto models; serverless's S3 uploads
 * (the package's artifacts) are in its deployment bucket.
 */
async function checkStack(checks: Checks, clients: MotoClients, template: Template, stackName: string): Promise<Map<string, string | undefined>> {
  // serverless deploys the template of the package's serverless-state.json: the one the checks read must be that one.
  const { TemplateBody = '{}' } = await clients.cloudFormation.send(new GetTemplateCommand({ StackName: stackName }));
  const deployed = JSON.parse(TemplateBody) as Template;
  const keys = [...new Set([...Object.keys(deployed.Resources ?? {}), ...Object.keys(template.Resources)])];
  const differing = keys.filter((key) => !isDeepStrictEqual(deployed.Resources?.[key], template.Resources[key]));
  checks.expect("moto's stack has the package's template", differing.length ? `its resources ${differing.join(', ')} differ` : undefined);
  const made = await stackResources(clients, stackName);
  const wanted = Object.entries(template.Resources).filter(([, resource]) => modelledByMoto(resource.Type));
  const missing = wanted.filter(([key]) => !made.has(key)).map(([key]) => key);
  checks.expect(`moto's stack has the ${wanted.length} resources of the template moto models`, missing.length ? `missing ${missing.join(', ')}` : undefined);
  const artifacts = [
    ...resourcesOf(template, 'AWS::Lambda::Function').map(([, fn]) => fn.Code.S3Key),
    ...resourcesOf(template, 'AWS::Lambda::LayerVersion').map(([, layer]) => layer.Content.S3Key),
  ].map((key) => path.basename(key));
  const what = `the package's ${artifacts.length} artifacts are in moto's deployment bucket (serverless uploaded them to moto)`;
  await checks.attempt(what, async () => {
    const { Contents = [] } = await clients.s3.send(new ListObjectsV2Command({ Bucket: made.get('ServerlessDeploymentBucket') }));
    const uploaded = new Set(Contents.map((object) => path.basename(object.Key ?? '')));
    const absent = artifacts.filter((file) => !uploaded.has(file));
    checks.expect(what, absent.length ? `absent: ${absent.join(', ')}` : undefined);
  });
  return made;
}

async function checkFunctions(
  checks: Checks,
  clients: MotoClients,
  template: Template,
  packageDir: string,
): Promise<{ names: string[]; arns: Map<string, string> }> {
  const functions = resourcesOf(template, 'AWS::Lambda::Function');
  const names = await functionNames(clients);
  checks.equal(`moto has the ${functions.length} functions of the template, by name`, names, functions.map(([, fn]) => fn.FunctionName).sort());
  checks.note("not checked: the functions' layers, tracing and architecture, which moto's CloudFormation does not give them");
  const arns = new Map<string, string>();
  for (const [key, fn] of functions) {
    await checks.attempt(`the function ${fn.FunctionName}`, async () => {
      const found = await clients.lambda.send(new GetFunctionConfigurationCommand({ FunctionName: fn.FunctionName }));
      arns.set(key, found.FunctionArn ?? '');
      checks.equal(
        `the function ${fn.FunctionName}: its handler, runtime, timeout, memory and code (the package's ${path.basename(fn.Code.S3Key)})`,
        [found.Handler, found.Runtime, found.Timeout, found.MemorySize, found.CodeSha256],
        [fn.Handler, fn.Runtime, fn.Timeout, fn.MemorySize, artifactSha256(packageDir, fn.Code.S3Key)],
      );
    });
  }
  return { names, arns };
}

/** Moto names a layer after the stack and its logical id (it does not read LayerName): found by its description. */
async function checkLayers(checks: Checks, clients: MotoClients, template: Template, packageDir: string): Promise<Deployed['layers']> {
  const found: Deployed['layers'] = [];
  const { Layers = [] } = await clients.lambda.send(new ListLayersCommand({}));
  for (const [key, layer] of resourcesOf(template, 'AWS::Lambda::LayerVersion')) {
    const published = Layers.find((candidate) => candidate.LatestMatchingVersion?.Description === layer.Description);
    if (!checks.expect(`the layer version ${key}`, published ? undefined : `no layer described "${layer.Description}"`)) continue;
    const name = published?.LayerName ?? '';
    const version = published?.LatestMatchingVersion?.Version ?? 0;
    const details = await clients.lambda.send(new GetLayerVersionCommand({ LayerName: name, VersionNumber: version }));
    checks.equal(
      `the layer version ${key} (${name}:${version}): its runtimes and content (the package's ${path.basename(layer.Content.S3Key)})`,
      [details.CompatibleRuntimes, details.Content?.CodeSha256],
      [layer.CompatibleRuntimes, artifactSha256(packageDir, layer.Content.S3Key)],
    );
    found.push({ name, version });
  }
  return found;
}

async function checkQueues(checks: Checks, clients: MotoClients, template: Template): Promise<{ queues: Deployed['queues']; arns: Map<string, string> }> {
  const templateQueues = resourcesOf(template, 'AWS::SQS::Queue');
  const attributes = new Map<string, Record<string, string>>();
  for (const [key, queue] of templateQueues) {
    await checks.attempt(`the queue ${queue.QueueName}`, async () => {
      const { QueueUrl } = await clients.sqs.send(new GetQueueUrlCommand({ QueueName: queue.QueueName }));
      const { Attributes = {} } = await clients.sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['All'] }));
      attributes.set(key, Attributes);
    });
  }
  const arns = new Map([...attributes].map(([key, found]) => [key, found.QueueArn]));
  const queues: Deployed['queues'] = {};
  for (const [key, queue] of templateQueues) {
    const found = attributes.get(key);
    if (!found) continue;
    const redrive = found.RedrivePolicy ? (JSON.parse(found.RedrivePolicy) as { deadLetterTargetArn: string; maxReceiveCount: number | string }) : undefined;
    queues[key] = {
      visibilityTimeout: Number(found.VisibilityTimeout),
      ...(redrive && { redrive: { maxReceiveCount: Number(redrive.maxReceiveCount), deadLetterQueue: nameOf(redrive.deadLetterTargetArn) } }),
    };
    checks.equal(
      `the queue ${queue.QueueName}: its visibility timeout, retention and redrive policy`,
      [Number(found.VisibilityTimeout), Number(found.MessageRetentionPeriod), redrive && [redrive.deadLetterTargetArn, Number(redrive.maxReceiveCount)]],
      [
        queue.VisibilityTimeout,
        queue.MessageRetentionPeriod,
        queue.RedrivePolicy && [arns.get(queue.RedrivePolicy.deadLetterTargetArn['Fn::GetAtt'][0]), queue.RedrivePolicy.maxReceiveCount],
      ],
    );
  }
  return { queues, arns };
}

async function checkEventSourceMappings(
  checks: Checks,
  clients: MotoClients,
  template: Template,
  functionArns: Map<string, string>,
  queueArns: Map<string, string>,
): Promise<Deployed['eventSourceMappings']> {
  const { EventSourceMappings = [] } = await clients.lambda.send(new ListEventSourceMappingsCommand({}));
  const found: Deployed['eventSourceMappings'] = [];
  for (const [key, mapping] of resourcesOf(template, 'AWS::Lambda::EventSourceMapping')) {
    const queueArn = queueArns.get(mapping.EventSourceArn['Fn::GetAtt'][0]);
    const functionArn = functionArns.get(mapping.FunctionName['Fn::GetAtt'][0]);
    const made = EventSourceMappings.find((candidate) => candidate.EventSourceArn === queueArn && candidate.FunctionArn === functionArn);
    if (!checks.expect(`the event source mapping ${key}`, made ? undefined : `none from ${queueArn} to ${functionArn}`)) continue;
    checks.equal(
      `the event source mapping ${key}: its batch size and response types`,
      [made?.BatchSize, made?.FunctionResponseTypes],
      [mapping.BatchSize, mapping.FunctionResponseTypes],
    );
    found.push({ function: nameOf(functionArn), queue: nameOf(queueArn), batchSize: made?.BatchSize ?? 0 });
  }
  return found;
}

async function checkSchedules(
  checks: Checks,
  clients: MotoClients,
  template: Template,
  made: Map<string, string | undefined>,
  functionArns: Map<string, string>,
): Promise<Deployed['schedules']> {
  const found: Deployed['schedules'] = [];
  for (const [key, rule] of resourcesOf(template, 'AWS::Events::Rule')) {
    await checks.attempt(`the schedule ${key}`, async () => {
      const Name = made.get(key);
      const described = await clients.events.send(new DescribeRuleCommand({ Name }));
      const { Targets = [] } = await clients.events.send(new ListTargetsByRuleCommand({ Rule: Name }));
      const wantedTargets = rule.Targets.map((target) => functionArns.get(target.Arn['Fn::GetAtt'][0]));
      checks.equal(
        `the schedule ${key}: its expression, state and targets`,
        [described.ScheduleExpression, described.State, Targets.map((target) => target.Arn)],
        [rule.ScheduleExpression, rule.State, wantedTargets],
      );
      found.push({ function: nameOf(Targets[0]?.Arn), expression: described.ScheduleExpression ?? '' });
    });
  }
  return found;
}

async function checkObservability(checks: Checks, clients: MotoClients, template: Template): Promise<Pick<Deployed, 'topics' | 'dashboards'>> {
  const arns = await listTopics(clients);
  const topics: string[] = [];
  for (const [key, topic] of resourcesOf(template, 'AWS::SNS::Topic')) {
    const arn = arns.find((candidate) => nameOf(candidate) === topic.TopicName);
    if (checks.expect(`the topic ${key} (${topic.TopicName})`, arn ? undefined : `moto has only ${shown(arns)}`) && arn) topics.push(arn);
  }
  const dashboards: Deployed['dashboards'] = [];
  for (const [key, dashboard] of resourcesOf(template, 'AWS::CloudWatch::Dashboard')) {
    await checks.attempt(`the dashboard ${key}`, async () => {
      const { DashboardBody = '' } = await clients.cloudWatch.send(new GetDashboardCommand({ DashboardName: dashboard.DashboardName }));
      const widgets = (JSON.parse(DashboardBody) as { widgets: unknown[] }).widgets.length;
      const wanted = (JSON.parse(dashboard.DashboardBody['Fn::Sub'][0]) as { widgets: unknown[] }).widgets.length;
      checks.equal(
        `the dashboard ${dashboard.DashboardName}: its widgets, with every substitution made`,
        [widgets, DashboardBody.includes('${')],
        [wanted, false],
      );
      dashboards.push({ name: dashboard.DashboardName, widgets });
    });
  }
  return { topics, dashboards };
}

/** What moto does not model: its routes reach functions of the template, its alarms tell the template's topic. */
function checkTemplateOnly(checks: Checks, template: Template): Deployed['fromTemplateOnly'] {
  const skipped = [...new Set(Object.values(template.Resources).map((resource) => resource.Type))].filter((type) => !modelledByMoto(type));
  checks.note(`checked from the template only, because moto does not model them: ${skipped.join(', ')}`);
  const integrations = new Map(resourcesOf(template, 'AWS::ApiGatewayV2::Integration'));
  const routes = resourcesOf(template, 'AWS::ApiGatewayV2::Route');
  const unrouted = routes.filter(([, route]) => {
    const integration = integrations.get(route.Target['Fn::Join'][1][1].Ref);
    return template.Resources[integration?.IntegrationUri['Fn::GetAtt'][0] ?? '']?.Type !== 'AWS::Lambda::Function';
  });
  checks.expect(
    `(template) each of the ${routes.length} HTTP API routes reaches a function through an integration`,
    unrouted.length ? `not: ${unrouted.map(([key]) => key).join(', ')}` : undefined,
  );
  const topics = resourcesOf(template, 'AWS::SNS::Topic').map(([key]) => ({ Ref: key }));
  const alarms = resourcesOf(template, 'AWS::CloudWatch::Alarm');
  const elsewhere = alarms.filter(([, alarm]) => ![...alarm.AlarmActions, ...(alarm.OKActions ?? [])].every((action) => isDeepStrictEqual([action], topics)));
  checks.expect(
    `(template) each of the ${alarms.length} alarms tells the alarm topic, and nothing else`,
    elsewhere.length ? `not: ${elsewhere.map(([key]) => key).join(', ')}` : undefined,
  );
  return { routes: routes.length, alarms: alarms.length };
}

/** Checks what moto made of the template (the stack deployed) and returns it. */
/**
 * The bucket of the audit chain's checkpoints: made by moto; its Object Lock in the template only, as
 * moto's CloudFormation makes the bucket without applying ObjectLockConfiguration.
 */
async function checkCheckpointBucket(
  checks: Checks,
  clients: MotoClients,
  template: Template,
  made: Map<string, string | undefined>,
): Promise<Deployed['checkpointBucket']> {
  const [[key, bucket]] = resourcesOf(template, 'AWS::S3::Bucket').filter(([logicalId]) => logicalId === 'AuditCheckpointBucket');
  await checks.attempt(`the bucket ${key}`, async () => {
    await clients.s3.send(new HeadBucketCommand({ Bucket: made.get(key) }));
    checks.expect(`the bucket ${key}`);
  });
  const lock = bucket.ObjectLockConfiguration;
  checks.equal(
    `the bucket ${key} in the template (moto does not apply Object Lock): Object Lock on, versioned, kept when the stack is removed`,
    [bucket.ObjectLockEnabled, lock?.ObjectLockEnabled, bucket.VersioningConfiguration?.Status, template.Resources[key].DeletionPolicy],
    [true, 'Enabled', 'Enabled', 'Retain'],
  );
  return { mode: lock?.Rule.DefaultRetention.Mode, days: lock?.Rule.DefaultRetention.Days };
}

export async function checkDeployed(
  checks: Checks,
  clients: MotoClients,
  { template, stackName, packageDir }: { template: Template; stackName: string; packageDir: string },
): Promise<Deployed> {
  const made = await checkStack(checks, clients, template, stackName);
  const functions = await checkFunctions(checks, clients, template, packageDir);
  const layers = await checkLayers(checks, clients, template, packageDir);
  const queues = await checkQueues(checks, clients, template);
  const eventSourceMappings = await checkEventSourceMappings(checks, clients, template, functions.arns, queues.arns);
  const schedules = await checkSchedules(checks, clients, template, made, functions.arns);
  const observability = await checkObservability(checks, clients, template);
  const checkpointBucket = await checkCheckpointBucket(checks, clients, template, made);
  const fromTemplateOnly = checkTemplateOnly(checks, template);
  return { functions: functions.names, layers, queues: queues.queues, eventSourceMappings, schedules, ...observability, checkpointBucket, fromTemplateOnly };
}

/** The stack's id and status, or undefined once moto has no such stack (or only its deletion). */
export async function describeStack(clients: MotoClients, stackName: string): Promise<{ stackId: string; status: string } | undefined> {
  try {
    const { Stacks = [] } = await clients.cloudFormation.send(new DescribeStacksCommand({ StackName: stackName }));
    const [stack] = Stacks;
    return stack?.StackId && stack.StackStatus && stack.StackStatus !== 'DELETE_COMPLETE' ? { stackId: stack.StackId, status: stack.StackStatus } : undefined;
  } catch (error) {
    if (error instanceof Error && /does not exist/.test(error.message)) return undefined;
    throw error;
  }
}

/** After `serverless remove`: the stack, and with it the functions, queues and topic, are gone. */
export async function checkRemoved(
  checks: Checks,
  clients: MotoClients,
  template: Template,
  stackName: string,
): Promise<{ stackGone: boolean; left: string[] }> {
  const stackGone = checks.equal(`the stack ${stackName} is gone`, await describeStack(clients, stackName), undefined);
  const wanted = new Set([
    ...resourcesOf(template, 'AWS::Lambda::Function').map(([, fn]) => fn.FunctionName),
    ...resourcesOf(template, 'AWS::SNS::Topic').map(([, topic]) => topic.TopicName),
  ]);
  const left = [...(await functionNames(clients)), ...(await listTopics(clients)).map(nameOf)].filter((name) => wanted.has(name));
  for (const [, queue] of resourcesOf(template, 'AWS::SQS::Queue')) {
    const found = await clients.sqs.send(new GetQueueUrlCommand({ QueueName: queue.QueueName })).catch(() => undefined);
    if (found) left.push(queue.QueueName);
  }
  checks.equal("the stack's functions, queues and topic are gone with it", left, []);
  // A layer version without DeletionPolicy goes with its stack in AWS; moto's has no deletion.
  const { Layers = [] } = await clients.lambda.send(new ListLayersCommand({}));
  const layers = new Set(resourcesOf(template, 'AWS::Lambda::LayerVersion').map(([, layer]) => layer.Description));
  const kept = Layers.filter((layer) => layers.has(layer.LatestMatchingVersion?.Description ?? '')).map((layer) => layer.LayerName);
  if (kept.length) checks.note(`not checked: moto keeps the layer versions ${kept.join(', ')} after the stack's deletion (it cannot delete them)`);
  return { stackGone, left };
}
