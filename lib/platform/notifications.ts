import type { Settings } from '#lib/settings/index';

export type NotificationEvent =
  | 'new-policy-event'
  | 'new-metric-event'
  | 'failure-event'
  | 'exception-expiring-event'
  | 'approval-requested-event'
  | 'approval-decided-event'
  | 'resource-newly-failing-event'
  | 'policy-rollout-notice-event';

/** The notification document POSTed to `notification.url` (docs/notifications.md). */
export interface Notification extends Record<string, unknown> {
  event: string;
  /** What it is about: a policy or metric, or (a four-eyes request of the service's settings) a role binding, a resource type, the LLM or the embedder. */
  entity: { id: string | null; name: string | null; type: 'policy' | 'metric' | 'role-binding' | 'resource-type' | 'llm' | 'embedder' };
  message: string;
  timestamp: string;
}

/** The notification of `event` (a key of the notification block), or undefined when notifications are off. */
export function notificationOf(settings: Settings, event: NotificationEvent, entity: Notification['entity'], message: string): Notification | undefined {
  const { notification } = settings;
  if (!notification.enabled) return undefined;
  const names = {
    'new-policy-event': notification.newPolicyEvent,
    'new-metric-event': notification.newMetricEvent,
    'failure-event': notification.failureEvent,
    'exception-expiring-event': notification.exceptionExpiringEvent,
    'approval-requested-event': notification.approvalRequestedEvent,
    'approval-decided-event': notification.approvalDecidedEvent,
    'resource-newly-failing-event': notification.resourceNewlyFailingEvent,
    'policy-rollout-notice-event': notification.policyRolloutNoticeEvent,
  };
  const name = names[event];
  // The settings refuse an enabled notification block without its event names.
  if (!name) throw new Error(`notification.${event} is required when notification.enabled is true`);
  return { event: name, entity, message, timestamp: new Date().toISOString() };
}
