import type { TrellisEvent } from '@trelliscms/core';
import { roleHasPermission } from '../auth/permissions';
import type { Permission } from '../auth/types';
import type { Graph } from '../engines/port';
import { listMembers } from '../platform/members';
import type { Clock } from '../shared/clock';
import { notifyUsers } from './notifications';

/** Which events make notifications, for whom (members holding `permission`), titled how. */
interface NotificationRule {
  /** Site members whose role holds this permission receive it. */
  permission: Permission;
  /** The title, or null when this event makes no notification. */
  title(event: TrellisEvent): string | null;
}

const text = (value: unknown, fallback = '?') => (typeof value === 'string' ? value : fallback);

/**
 * Who is told what (docs/events.md "Notifications"): a scheduled deployment that went live and
 * any deployment that failed go to those who deploy (`release:deploy`: publishers and up, and
 * the deployment's author); a failed build to those who run builds (`build:run`: publishers
 * and up); a review gone stale to those who manage releases (`release:manage`: publishers and
 * up); a webhook disabled by the server to admins (`site:update`).
 */
export const NOTIFICATION_RULES: Partial<Record<TrellisEvent['type'], NotificationRule>> = {
  'deployment.live': {
    permission: 'release:deploy',
    title: (event) =>
      event.data.scheduled === true
        ? `Scheduled deployment of ${text(event.data.releaseId)} to ${text(event.data.environmentId)} is live`
        : null,
  },
  'deployment.failed': {
    permission: 'release:deploy',
    title: (event) =>
      `Deployment of ${text(event.data.releaseId)} to ${text(event.data.environmentId)} failed: ${text(event.data.error, 'see the deployment')}`,
  },
  'build.failed': {
    permission: 'build:run',
    title: (event) => `Build ${text(event.data.buildId)} (${text(event.data.env)}) failed`,
  },
  'review.stale': {
    permission: 'release:manage',
    title: (event) =>
      `The review of ${text(event.data.itemId)} in ${text(event.data.releaseId)} is stale: the item changed since it was reviewed`,
  },
  'webhook.disabled': {
    permission: 'site:update',
    title: (event) =>
      `Webhook ${text(event.data.webhookId)} (${text(event.data.url)}) was disabled after repeated delivery failures`,
  },
};

/** The listener that fills inboxes from events (see {@link NOTIFICATION_RULES}). */
export function notifier({ platform, clock }: { platform: Graph; clock: Clock }) {
  return async (event: TrellisEvent): Promise<number> => {
    const rule = NOTIFICATION_RULES[event.type];
    const title = rule?.title(event);
    if (!rule || !title) return 0;
    const members = await listMembers(platform, event.siteId);
    const recipients = new Set(
      members
        .filter((member) => roleHasPermission(member.role, rule.permission))
        .map((member) => member.userId),
    );
    const author = event.data.createdBy;
    if (
      typeof author === 'string' &&
      author.startsWith('user:') &&
      members.some((m) => m.userId === author)
    ) {
      recipients.add(author);
    }
    return notifyUsers({ platform, userIds: [...recipients].sort(), event, title, now: clock.now() });
  };
}
