import { registerEnumType } from 'type-graphql';

export enum ReviewOutcome {
  APPROVED = 'APPROVED',
  REJECTED = 'REJECTED',
}
export enum RejectionReason {
  BROKEN_IFRAME_URL = 'BROKEN_IFRAME_URL',
  INVALID_ICON = 'INVALID_ICON',
  MISLEADING_DESCRIPTION = 'MISLEADING_DESCRIPTION',
  OTHER = 'OTHER',
}
registerEnumType(ReviewOutcome, {
  name: 'ReviewOutcome',
  description: 'A reviewer’s decision on an app',
  valuesConfig: {
    APPROVED: { description: 'The app is listed in the store' },
    REJECTED: { description: 'The app goes back to its developer, with at least one reason' },
  },
});
registerEnumType(RejectionReason, {
  name: 'RejectionReason',
  description: 'Why an app was rejected',
  valuesConfig: {
    BROKEN_IFRAME_URL: { description: 'The App URL does not load in the iframe' },
    INVALID_ICON: { description: 'The icon is not a valid image' },
    MISLEADING_DESCRIPTION: { description: 'The description is misleading' },
    OTHER: { description: 'Another reason, explained in the note (required)' },
  },
});

/** How each reason reads in the developer's notification. */
export const REJECTION_REASON_TEXT: Record<RejectionReason, string> = {
  BROKEN_IFRAME_URL: 'the App URL does not load in the iframe',
  INVALID_ICON: 'the icon is not a valid image',
  MISLEADING_DESCRIPTION: 'the description is misleading',
  OTHER: 'another reason (see the note)',
};
