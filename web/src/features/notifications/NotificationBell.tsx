import { useMutation, useQuery, useSubscription } from '@apollo/client/react';
import { useCallback, useId, useRef, useState } from 'react';
import { useFragment } from '../../gql';
import { useFormat, useT } from '../../i18n/i18n';
import { BellIcon } from '../../ui/icons';
import { Link } from '../../ui/Link';
import { useDismiss } from '../../ui/useDismiss';
import { notificationPath, notificationText } from './notification-text';
import { MarkNotificationReadMutation, NotificationAddedSubscription, NotificationFields, NotificationsQuery } from './notifications';

export function NotificationBell() {
  const t = useT();
  const format = useFormat();
  const panelId = useId();
  const [open, setOpen] = useState(false);
  const bellRef = useRef<HTMLDivElement>(null);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const close = useCallback(() => setOpen(false), []);
  const list = useQuery(NotificationsQuery, { fetchPolicy: 'cache-and-network' });
  // Written into the cached list, so the normalised entry also follows markNotificationRead.
  useSubscription(NotificationAddedSubscription, {
    onData: ({ client, data }) => {
      const added = data.data?.notificationAdded;
      if (!added) return;
      const updated = client.cache.updateQuery({ query: NotificationsQuery }, (current) =>
        current ? { notifications: { ...current.notifications, edges: [{ __typename: 'NotificationEdge' as const, node: added }, ...current.notifications.edges] } } : current,
      );
      // A refresh that fails shows as the query's error.
      if (!updated) void list.refetch();
    },
  });
  const [markRead] = useMutation(MarkNotificationReadMutation);

  const all = dedupeById(useFragment(NotificationFields, list.data?.notifications.edges.map((edge) => edge.node) ?? []));
  const unread = all.filter((notification) => !notification.readAt);

  function markAllRead() {
    // One that fails stays unread, to be marked again.
    for (const notification of unread) void markRead({ variables: { id: notification.id } }).catch(() => undefined);
  }

  // A popover left open covers the page under it: Escape and a click anywhere else close it.
  useDismiss(open, close, bellRef, buttonRef);

  /** Choosing a notification takes the reader to it: it is read, and the popover gets out of the way. */
  function choose(notification: { id: string; readAt?: string | null }) {
    setOpen(false);
    // One that fails stays unread, to be marked again.
    if (!notification.readAt) void markRead({ variables: { id: notification.id } }).catch(() => undefined);
  }

  return (
    <div className="bell" ref={bellRef}>
      <button
        ref={buttonRef}
        type="button"
        className="bell-button secondary"
        aria-expanded={open}
        aria-controls={panelId}
        aria-label={t('bell.label', { count: unread.length })}
        onClick={() => setOpen(!open)}
      >
        <BellIcon />
        {unread.length > 0 && (
          <span className="bell-count" data-testid="unread-count">
            {unread.length}
          </span>
        )}
      </button>
      <div id={panelId} className="bell-panel card" hidden={!open}>
        {all.length === 0 ? (
          <p>{t('bell.empty')}</p>
        ) : (
          <>
            <ul className="notification-list">
              {all.map((notification) => (
                <li key={notification.id} className={notification.readAt ? 'read' : 'unread'}>
                  {!notification.readAt && <span className="visually-hidden">{t('bell.unread')}: </span>}
                  {notificationPath(notification) ? (
                    <Link href={notificationPath(notification)!} onClick={() => choose(notification)}>
                      {notificationText(t, format, notification)}
                    </Link>
                  ) : (
                    <span>{notificationText(t, format, notification)}</span>
                  )}
                  <time dateTime={notification.createdAt}>{format.dateTime(notification.createdAt)}</time>
                </li>
              ))}
            </ul>
            {unread.length > 0 && (
              <button type="button" className="secondary" onClick={markAllRead}>
                {t('bell.markAllRead')}
              </button>
            )}
          </>
        )}
      </div>
      <span className="visually-hidden" aria-live="polite">
        {unread.length > 0 ? t('bell.label', { count: unread.length }) : ''}
      </span>
    </div>
  );
}

/** A notification that arrived live may come again with the next fetch of the list. */
function dedupeById<T extends { id: string }>(notifications: readonly T[]): T[] {
  return [...new Map(notifications.map((notification) => [notification.id, notification] as const)).values()];
}
