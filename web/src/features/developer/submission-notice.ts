/** A first submission just sent: which app, and when its review is due. */
export interface SentSubmission {
  appId: string;
  reviewDueAt: string;
}

// The submit page hands over to the app's page by navigating, which remounts everything: the news of the
// submission waits here for that page, which says it once (as review/decision-notice.ts does for decisions).
let sent: SentSubmission | null = null;

export function announceSubmission(submission: SentSubmission): void {
  sent = submission;
}

/** The submission to report on this app's page, if one was just sent; reading does not consume it (render may run twice). */
export const submissionToAnnounce = (appId: string): SentSubmission | null => (sent?.appId === appId ? sent : null);

/** Called once it is on screen, so coming back to the page later does not repeat old news. */
export function submissionAnnounced(): void {
  sent = null;
}
