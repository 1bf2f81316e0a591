import { conflict, forbidden } from '../../platform/errors.js';

/**
 * `extensions.reason` of a review decision's refusals: stable values clients branch on (the messages are for
 * people). Not to be confused with RejectionReason, the reasons a reviewer gives for rejecting an app.
 */
export const ReviewErrorReason = {
  /** FORBIDDEN: nobody decides the review of their own app, admins included. */
  OWN_APP: 'OWN_APP',
  /** CONFLICT: the app is not pending review (already decided, or never submitted). */
  NOT_PENDING_REVIEW: 'NOT_PENDING_REVIEW',
  /** CONFLICT: the developer changed the app after the reviewer opened it. */
  REVISION_CHANGED: 'REVISION_CHANGED',
  /** CONFLICT: the version's price cannot be charged at this server's POINT_VALUE_VND (raised after it was submitted). */
  PRICE_NOT_CHARGEABLE: 'PRICE_NOT_CHARGEABLE',
} as const;
export type ReviewErrorReason = (typeof ReviewErrorReason)[keyof typeof ReviewErrorReason];

export const reviewErrors = {
  ownApp: () => forbidden('You cannot decide the review of your own app; another reviewer must decide it', ReviewErrorReason.OWN_APP),
  notPendingReview: (status: string) => conflict(`This app is ${status}; only apps pending review can be decided`, ReviewErrorReason.NOT_PENDING_REVIEW),
  revisionChanged: (current: number, opened: number) =>
    conflict(`The developer changed this app (revision ${current}) after you opened revision ${opened}; review it again`, ReviewErrorReason.REVISION_CHANGED),
  priceNotChargeable: (pricePoints: number) =>
    conflict(
      `This version's price (${pricePoints} points) cannot be charged at the platform's current point value, so no buyer could pay it; reject it (reason OTHER) so the developer lowers the price`,
      ReviewErrorReason.PRICE_NOT_CHARGEABLE,
    ),
};
