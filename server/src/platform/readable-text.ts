import { textIssue, type TextIssue } from '@plaza/shared';
import { ValidateBy } from 'class-validator';

// What counts as readable text lives in @plaza/shared (the web forms run the same check); this is the
// server's wording of it and the class-validator rule for DTOs.

/** The server's wording of a text issue, after the field name ("name must not contain ..."). */
export function describeTextIssue(issue: TextIssue): string {
  switch (issue.code) {
    case 'CONTROL_CHARACTER':
      return 'must not contain control characters';
    case 'UNPAIRED_SURROGATE':
      return 'must be valid Unicode text (it has an unpaired surrogate)';
    case 'HIDDEN_CHARACTER':
      return `must not contain invisible or text-direction characters (found ${issue.codePoint})`;
  }
}

/**
 * Why text is unfit for people to read (control characters, lone surrogates, invisible or
 * direction-changing characters), or undefined when it is fine.
 */
export function textProblem(value: string, options: { multiline?: boolean } = {}): string | undefined {
  const issue = textIssue(value, options);
  return issue && describeTextIssue(issue);
}

/** Free text people write for others to read (notes, reasons, token names); null and undefined pass. */
export const IsReadableText = (options: { multiline?: boolean } = {}) => {
  const check = (v: unknown) => (v === null || v === undefined ? undefined : typeof v !== 'string' ? 'must be text' : textProblem(v, options));
  return ValidateBy({
    name: 'readableText',
    validator: { validate: (value) => check(value) === undefined, defaultMessage: (args) => `${args?.property} ${check(args?.value)}` },
  });
};
