/**
 * What makes text unfit for people to read, shared by the server (which decides) and the web forms
 * (which tell people while they type). Both word the issue their own way, so this returns what is
 * wrong, not a sentence.
 */
export type TextIssue =
  | { code: 'CONTROL_CHARACTER' }
  | { code: 'UNPAIRED_SURROGATE' }
  /** `codePoint` is the first offending character as `U+XXXX`. */
  | { code: 'HIDDEN_CHARACTER'; codePoint: string };

/**
 * A zero-width joiner between two emoji draws them as one picture (👩‍💻, 👨‍👩‍👧), so it stays there;
 * anywhere else it only hides things.
 */
const EMOJI_ZWJ = /(?<=\p{Extended_Pictographic}[\u{FE0F}\u{1F3FB}-\u{1F3FF}]?)\u{200D}(?=\p{Extended_Pictographic})/gu;
/**
 * Format characters (\p{Cf}: bidirectional overrides and isolates U+202A-202E and U+2066-2069, marks,
 * zero-width spaces and joiners, tag characters) and line or paragraph separators. Invisible, they make
 * "Plaza Wallet\u202Egnp.exe" display as "Plaza Walletexe.png" and two names that look the same differ.
 */
const HIDDEN_CHARACTER = /[\p{Cf}\p{Zl}\p{Zp}]/u;
const codePointOf = (char: string) => `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/** The first invisible or text-direction character, as `U+XXXX`, or undefined when there is none. */
export function hiddenCharacter(text: string): string | undefined {
  const found = HIDDEN_CHARACTER.exec(text.replace(EMOJI_ZWJ, ''));
  return found ? codePointOf(found[0]) : undefined;
}

/**
 * Text people read or browsers load: no control characters (PostgreSQL cannot store NUL at all; line
 * breaks and tabs only where `multiline`), no lone UTF-16 surrogates, which would be stored as U+FFFD,
 * i.e. not as sent, and nothing invisible that changes how the rest reads.
 */
export function textIssue(value: string, { multiline = false } = {}): TextIssue | undefined {
  if ((multiline ? /(?![\t\n\r])\p{Cc}/u : /\p{Cc}/u).test(value)) return { code: 'CONTROL_CHARACTER' };
  if (/\p{Cs}/u.test(value)) return { code: 'UNPAIRED_SURROGATE' };
  const codePoint = hiddenCharacter(value);
  return codePoint ? { code: 'HIDDEN_CHARACTER', codePoint } : undefined;
}
