import type { DecisionOutcome } from './decision-rules';

export interface SentDecision {
  appName: string;
  outcome: DecisionOutcome;
}

// The review page hands over to the queue by navigating, which remounts everything: the news of the
// decision just sent waits here for the queue page, which says it once.
let sent: SentDecision | null = null;

export function announceDecision(decision: SentDecision): void {
  sent = decision;
}

/** The decision to report, if one was just sent; reading does not consume it (render may run twice). */
export const decisionToAnnounce = (): SentDecision | null => sent;

/** Called once it is on screen, so coming back to the queue later does not repeat old news. */
export function decisionAnnounced(): void {
  sent = null;
}
