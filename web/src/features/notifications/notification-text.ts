import type { LocaleFormat } from '../../i18n/dates';
import { codeLabel, type Translate } from '../../i18n/i18n';
import type { MessageKey } from '../../i18n/strings';
import { developerAppPath, storeAppPath } from '../../routes';

/** The facts of a notification the web app writes its sentence from (Notification in the schema). */
export interface NotificationFacts {
  kind: string;
  message: string;
  appName?: string | null;
  reasons?: readonly string[] | null;
  note?: string | null;
  since?: string | null;
  lastError?: string | null;
  failedDeliveries?: number | null;
  points?: number | null;
}

/**
 * A notification in the reader's language, written from its kind and facts; the server's English
 * message for a kind this build does not know and for rows older than the facts (no appName).
 */
export function notificationText(t: Translate, format: LocaleFormat, n: NotificationFacts): string {
  const app = n.appName;
  if (!app) return n.message;
  const error = n.lastError ?? t('notice.unknownError');
  switch (n.kind) {
    case 'APP_APPROVED':
      return t('notice.APP_APPROVED', { app });
    case 'APP_REJECTED': {
      if (!n.reasons?.length) return n.message;
      const reasons = n.reasons.map((reason) => codeLabel(t, 'reason', reason)).join('; ');
      return n.note ? t('notice.APP_REJECTED.note', { app, reasons, note: n.note }) : t('notice.APP_REJECTED', { app, reasons });
    }
    case 'WEBHOOK_FAILING':
      if (!n.since || n.failedDeliveries == null) return n.message;
      return t('notice.WEBHOOK_FAILING', { app, count: n.failedDeliveries, since: format.dateTime(n.since), error });
    case 'WEBHOOK_DISABLED':
    case 'WEBHOOK_RECOVERED':
      if (!n.since) return n.message;
      return t(`notice.${n.kind}` satisfies MessageKey, { app, since: format.dateTime(n.since), error });
    case 'PURCHASE_REFUNDED': {
      // Refunds older than the figure as a fact say it without the number (it is in their English message).
      if (n.points == null) return n.note ? t('notice.PURCHASE_REFUNDED.note', { app, note: n.note }) : t('notice.PURCHASE_REFUNDED', { app });
      return n.note ? t('notice.PURCHASE_REFUNDED.points.note', { app, points: n.points, note: n.note }) : t('notice.PURCHASE_REFUNDED.points', { app, points: n.points });
    }
    default:
      return n.message;
  }
}

/**
 * Where a notification takes its reader: a refund to the app's store page (a refunded app has left the
 * library; the store is where it can be had again); a review decision, a webhook's health and any other
 * kind about an app to the app's page in the developer portal, which shows its decisions and its health.
 */
export function notificationPath(n: { kind: string; appId?: string | null }): string | null {
  if (!n.appId) return null;
  return n.kind === 'PURCHASE_REFUNDED' ? storeAppPath(n.appId) : developerAppPath(n.appId);
}
