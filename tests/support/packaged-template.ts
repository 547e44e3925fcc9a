import { readFileSync } from 'node:fs';
import path from 'node:path';

type GetAtt = { 'Fn::GetAtt': [string, string] };

/** What these tests read of the CloudFormation template serverless writes, by resource type. */
export interface TemplateProperties {
  'AWS::Lambda::Function': {
    FunctionName: string;
    Handler: string;
    Runtime: string;
    Timeout: number;
    Environment: { Variables: Record<string, unknown> };
    TracingConfig?: { Mode: string };
    Layers?: unknown[];
  };
  'AWS::CloudWatch::Alarm': {
    Namespace: string;
    MetricName: string;
    Dimensions: { Name: string; Value: unknown }[];
    AlarmActions: unknown[];
    Threshold: number;
  };
  'AWS::CloudWatch::Dashboard': { DashboardBody: { 'Fn::Sub': [string, Record<string, unknown>] } };
  'AWS::SNS::Topic': { TopicName: string };
  'AWS::ApiGatewayV2::Route': { RouteKey: string };
  'AWS::SQS::Queue': { QueueName: string; RedrivePolicy?: unknown; VisibilityTimeout: number };
  'AWS::Lambda::EventSourceMapping': { EventSourceArn: GetAtt; FunctionName: GetAtt; BatchSize: number; MaximumBatchingWindowInSeconds?: number };
  'AWS::Events::Rule': { Targets: { Arn: GetAtt }[]; ScheduleExpression: string };
  'AWS::IAM::Role': { Policies: { PolicyDocument: { Statement: unknown[] } }[] };
}

/** The packaged template (cloudformation-template-update-stack.json) of a package folder. */
export function packagedTemplate(packageDir: string): { Resources: Record<string, { Type: string; Properties: unknown; DependsOn?: unknown }> } {
  return JSON.parse(readFileSync(templateFile(packageDir), 'utf8'));
}

export const templateFile = (packageDir: string) => path.join(packageDir, 'cloudformation-template-update-stack.json');

/** The resources of one type in the packaged template, as [logical id, properties]. */
export function resourcesOf<K extends keyof TemplateProperties>(packageDir: string, type: K): [string, TemplateProperties[K]][] {
  return Object.entries(packagedTemplate(packageDir).Resources)
    .filter(([, resource]) => resource.Type === type)
    .map(([key, resource]) => [key, resource.Properties as TemplateProperties[K]]);
}
