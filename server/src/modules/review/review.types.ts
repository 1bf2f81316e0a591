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
registerEnumType(ReviewOutcome, { name: 'ReviewOutcome' });
registerEnumType(RejectionReason, { name: 'RejectionReason' });

/** How each reason reads in the developer's notification. */
export const REJECTION_REASON_TEXT: Record<RejectionReason, string> = {
  BROKEN_IFRAME_URL: 'the App URL does not load in the iframe',
  INVALID_ICON: 'the icon is not a valid image',
  MISLEADING_DESCRIPTION: 'the description is misleading',
  OTHER: 'another reason (see the note)',
};
