import type { AppStatus } from '../../gql/graphql';

export const APP_STATUS_LABEL: Record<AppStatus, string> = {
  PENDING_REVIEW: 'Pending review',
  APPROVED: 'Approved',
  REJECTED: 'Rejected',
};

const dueDateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export const formatDueDate = (isoDateTime: string) => dueDateFormat.format(new Date(isoDateTime));
