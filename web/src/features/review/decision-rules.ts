export const REJECTION_REASONS = ['BROKEN_IFRAME_URL', 'INVALID_ICON', 'MISLEADING_DESCRIPTION', 'OTHER'] as const;
export type RejectionReasonValue = (typeof REJECTION_REASONS)[number];
export type DecisionOutcome = 'APPROVED' | 'REJECTED';

export interface DecisionValues {
  /** Null until the reviewer chooses: nothing is decided for them. */
  outcome: DecisionOutcome | null;
  reasons: RejectionReasonValue[];
  note: string;
}

export type DecisionField = 'outcome' | 'reasons' | 'note';
export type DecisionProblem = 'needsOutcome' | 'needsReason' | 'needsNote';

/**
 * An outcome chosen, and a rejection's rules (at least one reason; OTHER needs a note); the server checks the
 * rejection's rules too, this only saves a round trip.
 */
export function decisionProblems(values: DecisionValues): Partial<Record<DecisionField, DecisionProblem>> {
  if (values.outcome === null) return { outcome: 'needsOutcome' };
  if (values.outcome === 'APPROVED') return {};
  const problems: Partial<Record<DecisionField, DecisionProblem>> = {};
  if (values.reasons.length === 0) problems.reasons = 'needsReason';
  if (values.reasons.includes('OTHER') && values.note.trim() === '') problems.note = 'needsNote';
  return problems;
}

export function toDecisionInput(appId: string, revision: number, values: DecisionValues & { outcome: DecisionOutcome }) {
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
