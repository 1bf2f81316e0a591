import { registerEnumType } from 'type-graphql';
import { WebhookEventType } from '../../platform/webhook-enums.js';

export enum Pricing {
  FREE = 'FREE',
  PAID = 'PAID',
}
export enum AppStatus {
  PENDING_REVIEW = 'PENDING_REVIEW',
  APPROVED = 'APPROVED',
  REJECTED = 'REJECTED',
}
registerEnumType(Pricing, {
  name: 'Pricing',
  description: 'FREE, or PAID with a price in platform points',
  valuesConfig: {
    FREE: { description: 'Installed at no cost (installApp)' },
    PAID: { description: 'Bought with points (purchaseApp); pricePoints says how many' },
  },
});
registerEnumType(AppStatus, {
  name: 'AppStatus',
  description: 'Where an app stands in review',
  valuesConfig: {
    PENDING_REVIEW: { description: 'Submitted or resubmitted; waiting for a reviewer (due 24 hours after submission)' },
    APPROVED: { description: 'Approved and listed in the store' },
    REJECTED: { description: 'Rejected; editing the app resubmits it' },
  },
});

/** The categories users browse the store by; a fixed list, so the store's filters and every client agree on it. */
export const CATEGORIES = ['games', 'education', 'entertainment', 'finance', 'health', 'lifestyle', 'news', 'productivity', 'shopping', 'social', 'travel', 'utilities'] as const;

/** Review is due this long after (re)submission. */
export const REVIEW_DUE_AFTER_MS = 24 * 60 * 60 * 1000;

/** The fields users see in the store; editing one of them on an approved app sends it back to review. */
export const LISTING_FIELDS = [
  'name',
  'shortDescription',
  'iconUrl',
  'appUrl',
  'category',
  'pricing',
  'pricePoints',
  'longDescription',
  'screenshotUrls',
  'supportUrl',
  'privacyPolicyUrl',
] as const;
export type Listing = {
  name: string;
  shortDescription: string;
  iconUrl: string;
  appUrl: string;
  category: string;
  pricing: Pricing;
  pricePoints: number | null;
  /** The app page's details, all optional: none is stored as null, and a listing approved before they existed has none of them. */
  longDescription: string | null;
  screenshotUrls: string[] | null;
  supportUrl: string | null;
  privacyPolicyUrl: string | null;
};

/** A listing approved before the app page's details existed lacks their keys: it had none of them. */
export const NO_PAGE_DETAILS = { longDescription: null, screenshotUrls: null, supportUrl: null, privacyPolicyUrl: null } as const;

/** The events an app may choose to be sent (webhookEvents), in this order; APP_TEST is always sendable and never chosen. */
export const SUBSCRIBABLE_EVENTS: readonly WebhookEventType[] = [
  WebhookEventType.APP_PURCHASED,
  WebhookEventType.APP_INSTALLED,
  WebhookEventType.APP_UNINSTALLED,
  WebhookEventType.APP_REFUNDED,
];
