import { ValidateBy } from 'class-validator';

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
const codePoint = (char: string) => `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/** Why text holds invisible or direction-changing characters, or undefined when it holds none. */
export function hiddenCharacterProblem(value: string): string | undefined {
  const found = HIDDEN_CHARACTER.exec(value.replace(EMOJI_ZWJ, ''));
  return found ? `must not contain invisible or text-direction characters (found ${codePoint(found[0])})` : undefined;
}

/**
 * Text people read or browsers load: no control characters (PostgreSQL cannot store NUL at all; line
 * breaks and tabs only where `multiline`), no lone UTF-16 surrogates, which would be stored as U+FFFD,
 * i.e. not as sent, and nothing invisible that changes how the rest reads.
 */
export function textProblem(value: string, { multiline = false } = {}): string | undefined {
  if ((multiline ? /(?![\t\n\r])\p{Cc}/u : /\p{Cc}/u).test(value)) return 'must not contain control characters';
  if (/\p{Cs}/u.test(value)) return 'must be valid Unicode text (it has an unpaired surrogate)';
  return hiddenCharacterProblem(value);
}

/** Free text people write for others to read (notes, reasons, token names); null and undefined pass. */
export const IsReadableText = (options: { multiline?: boolean } = {}) => {
  const check = (v: unknown) => (v === null || v === undefined ? undefined : typeof v !== 'string' ? 'must be text' : textProblem(v, options));
  return ValidateBy({
    name: 'readableText',
    validator: { validate: (value) => check(value) === undefined, defaultMessage: (args) => `${args?.property} ${check(args?.value)}` },
  });
};
