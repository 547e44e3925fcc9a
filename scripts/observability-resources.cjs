'use strict';
/**
 * A local Serverless plugin (serverless.yml): adds to the CloudFormation template what operators
 * watch (docs/operations.md): an SNS topic for the alarms (an e-mail subscription when
 * custom.observability.alarmEmail is set), the alarms, and one CloudWatch dashboard. The service's
 * own metrics are read in custom.observability.namespace under their `service` dimension alone
 * (lib/observability/metrics.ts writes every metric's total that way). Lambda's errors and
 * throttles are watched per function, each function of the service, so none is forgotten when a
 * function is added.
 */

const SERVICE_DIMENSION = [{ Name: 'service', Value: 'computational-governance-platform' }];
const TOPIC = 'OperatorAlarmTopic';

/** A logical id of CloudFormation (alphanumeric) from a kebab-case name: reports-failed -> ReportsFailed. */
const logical = (name) => name.replace(/(^|-)([a-z0-9])/g, (_, _dash, letter) => letter.toUpperCase()).replace(/[^A-Za-z0-9]/g, '');

class ObservabilityResources {
  constructor(serverless) {
    this.serverless = serverless;
    this.hooks = { 'package:compileEvents': () => this.addResources() };
  }

  addResources() {
    const { service } = this.serverless;
    const naming = this.serverless.getProvider('aws').naming;
    const settings = service.custom.observability;
    const template = service.provider.compiledCloudFormationTemplate;
    const resources = {};
    const alarm = (name, properties, id = logical(name)) => {
      resources[`${id}Alarm`] = {
        Type: 'AWS::CloudWatch::Alarm',
        Properties: {
          AlarmName: `${service.service}-${service.provider.stage}-${name}`,
          AlarmActions: [{ Ref: TOPIC }],
          OKActions: [{ Ref: TOPIC }],
          TreatMissingData: 'notBreaching',
          EvaluationPeriods: 1,
          Period: 60,
          ...properties,
        },
      };
    };
    const own = (metric, statistic, comparison, threshold, extra = {}) => ({
      Namespace: settings.namespace,
      MetricName: metric,
      Dimensions: SERVICE_DIMENSION,
      Statistic: statistic,
      ComparisonOperator: comparison,
      Threshold: threshold,
      ...extra,
    });

    resources[TOPIC] = { Type: 'AWS::SNS::Topic', Properties: { TopicName: `${service.service}-${service.provider.stage}-alarms` } };
    if (settings.alarmEmail) {
      resources.OperatorAlarmSubscription = {
        Type: 'AWS::SNS::Subscription',
        Properties: { TopicArn: { Ref: TOPIC }, Protocol: 'email', Endpoint: settings.alarmEmail },
      };
    }

    // The queue of evaluation tasks: a message in the dead-letter queue is a page that kept failing; an old message is a worker that does not keep up.
    alarm('evaluation-dead-letters', {
      AlarmDescription: 'Evaluation tasks reached the dead-letter queue: a page kept failing (docs/operations.md)',
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': ['EvaluationDeadLetterQueue', 'QueueName'] } }],
      Statistic: 'Maximum',
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      Threshold: 1,
    });
    alarm('evaluation-queue-age', {
      AlarmDescription: 'The oldest evaluation message waits too long: the workers do not keep up (docs/operations.md)',
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateAgeOfOldestMessage',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': ['EvaluationQueue', 'QueueName'] } }],
      Statistic: 'Maximum',
      ComparisonOperator: 'GreaterThanThreshold',
      Threshold: settings.queueAgeSeconds,
      EvaluationPeriods: 5,
    });
    alarm('reports-failed', {
      AlarmDescription: 'An evaluation report ended failed (docs/operations.md)',
      ...own('ReportsFailed', 'Sum', 'GreaterThanOrEqualToThreshold', 1, { Period: 300 }),
    });
    alarm('outbox-backlog', {
      AlarmDescription: 'Outbox messages pile up: a receiver is down or the dispatcher stopped (docs/operations.md)',
      ...own('OutboxBacklog', 'Maximum', 'GreaterThanThreshold', settings.outboxBacklog, { EvaluationPeriods: 15 }),
    });
    alarm('outbox-oldest', {
      AlarmDescription: 'The oldest undelivered outbox message is old: deliveries are failing (docs/operations.md)',
      ...own('OutboxOldestAge', 'Maximum', 'GreaterThanThreshold', settings.outboxOldestSeconds, { EvaluationPeriods: 5 }),
    });
    alarm('authentication-refusals', {
      AlarmDescription: 'A spike of refused credentials: a broken client, an expired secret, or someone guessing (docs/operations.md)',
      ...own('AuthenticationRefusals', 'Sum', 'GreaterThanThreshold', settings.authenticationRefusals, { Period: 300 }),
    });
    for (const key of service.getAllFunctions()) {
      const functionName = { Ref: naming.getLambdaLogicalId(key) };
      for (const metric of ['Errors', 'Throttles']) {
        alarm(
          `${key}-${metric.toLowerCase()}`,
          {
            AlarmDescription: `${key}: Lambda ${metric.toLowerCase()} (docs/operations.md)`,
            Namespace: 'AWS/Lambda',
            MetricName: metric,
            Dimensions: [{ Name: 'FunctionName', Value: functionName }],
            Statistic: 'Sum',
            ComparisonOperator: 'GreaterThanOrEqualToThreshold',
            Threshold: 1,
            Period: 300,
          },
          `${naming.getNormalizedFunctionName(key)}${metric}`,
        );
      }
    }

    resources.OperatorDashboard = {
      Type: 'AWS::CloudWatch::Dashboard',
      Properties: {
        DashboardName: `${service.service}-${service.provider.stage}`,
        DashboardBody: {
          'Fn::Sub': [
            JSON.stringify(dashboard(settings.namespace)),
            { DeadLetterQueue: { 'Fn::GetAtt': ['EvaluationDeadLetterQueue', 'QueueName'] }, Queue: { 'Fn::GetAtt': ['EvaluationQueue', 'QueueName'] } },
          ],
        },
      },
    };
    Object.assign(template.Resources, resources);
  }
}

/** The dashboard: the service's metrics (totals, p50/p95 where a latency), the queue, and Lambda's errors and throttles. */
function dashboard(namespace) {
  const service = 'computational-governance-platform';
  const own = (metric, stat = 'Sum', label = metric) => [namespace, metric, 'service', service, { stat, label }];
  const widget = (title, metrics, y, x, extra = {}) => ({
    type: 'metric',
    x,
    y,
    width: 12,
    height: 6,
    properties: { title, region: '${AWS::Region}', view: 'timeSeries', stacked: false, period: 300, metrics, ...extra },
  });
  return {
    widgets: [
      widget('Calls and server errors', [own('Requests'), own('ServerErrors')], 0, 0),
      widget('Call latency (ms)', [own('RequestLatency', 'p50', 'p50'), own('RequestLatency', 'p95', 'p95')], 0, 12),
      widget('Evaluations', [own('Evaluations'), own('EvaluationsNotCompliant'), own('EvaluationsFailed')], 6, 0),
      widget('Engine calls and reports (ms)', [own('EngineCallDuration', 'p95', 'engine call p95'), own('ReportDuration', 'p95', 'report p95')], 6, 12),
      widget('Resolver pages', [own('ResolverPages'), own('ResolverPageLatency', 'p95', 'latency p95 (ms)')], 12, 0),
      widget(
        'Evaluation queue',
        [
          own('QueueLag', 'Maximum', 'lag taken (ms)'),
          ['AWS/SQS', 'ApproximateAgeOfOldestMessage', 'QueueName', '${Queue}', { stat: 'Maximum', label: 'oldest message (s)' }],
          ['AWS/SQS', 'ApproximateNumberOfMessagesVisible', 'QueueName', '${DeadLetterQueue}', { stat: 'Maximum', label: 'dead letters' }],
        ],
        12,
        12,
      ),
      widget('Outbox', [own('OutboxBacklog', 'Maximum'), own('OutboxOldestAge', 'Maximum'), own('OutboxDelivered'), own('OutboxFailed')], 18, 0),
      widget('Reports failed, refusals, approvals pending', [own('ReportsFailed'), own('AuthenticationRefusals'), own('ApprovalsPending', 'Maximum')], 18, 12),
      widget('Model calls and tokens', [own('ModelCalls'), own('ModelTokens')], 24, 0),
      widget(
        'Lambda errors and throttles',
        [
          [{ expression: `SUM(SEARCH('{AWS/Lambda,FunctionName} MetricName="Errors" ${service}', 'Sum', 300))`, label: 'errors', id: 'errors' }],
          [{ expression: `SUM(SEARCH('{AWS/Lambda,FunctionName} MetricName="Throttles" ${service}', 'Sum', 300))`, label: 'throttles', id: 'throttles' }],
        ],
        24,
        12,
      ),
    ],
  };
}

module.exports = ObservabilityResources;
