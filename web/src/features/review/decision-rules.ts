export const REJECTION_REASONS = ['BROKEN_IFRAME_URL', 'INVALID_ICON', 'MISLEADING_DESCRIPTION', 'OTHER'] as const;
export type RejectionReasonValue = (typeof REJECTION_REASONS)[number];
export type DecisionOutcome = 'APPROVED' | 'REJECTED';

export interface DecisionValues {
  outcome: DecisionOutcome;
  reasons: RejectionReasonValue[];
  note: string;
}

export type DecisionField = 'reasons' | 'note';

/** A rejection's rules (at least one reason; OTHER needs a note); the server checks them too, this only saves a round trip. */
export function decisionProblems(values: DecisionValues): Partial<Record<DecisionField, 'needsReason' | 'needsNote'>> {
  if (values.outcome === 'APPROVED') return {};
  const problems: Partial<Record<DecisionField, 'needsReason' | 'needsNote'>> = {};
  if (values.reasons.length === 0) problems.reasons = 'needsReason';
  if (values.reasons.includes('OTHER') && values.note.trim() === '') problems.note = 'needsNote';
  return problems;
}

export function toDecisionInput(appId: string, revision: number, values: DecisionValues) {
  const rejected = values.outcome === 'REJECTED';
  const note = values.note.trim();
  return {
    appId,
    revision,
    outcome: values.outcome,
    // An approval carries no reasons; the server refuses any.
    reasons: rejected ? values.reasons : [],
    note: note === '' ? null : note,
  };
}
