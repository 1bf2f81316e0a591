import { describe, expect, it } from 'vitest';
import { hiddenCharacter, textIssue } from '../src/index.js';

describe('readable text', () => {
  it('refuses direction overrides, zero-width spaces and tags, naming the code point', () => {
    expect(hiddenCharacter('abc\u202Edef')).toBe('U+202E');
    expect(hiddenCharacter('a\u200Bb')).toBe('U+200B');
    expect(hiddenCharacter('flag\u{E0041}')).toBe('U+E0041');
  });

  it('keeps a zero-width joiner between emoji, and only there', () => {
    expect(hiddenCharacter('👨‍👩‍👧 family')).toBeUndefined();
    expect(hiddenCharacter('👩🏽‍💻')).toBeUndefined();
    expect(hiddenCharacter('a\u200Db')).toBe('U+200D');
  });

  it('allows line breaks and tabs only in multiline text, and never NUL or lone surrogates', () => {
    expect(textIssue('one\ntwo')).toEqual({ code: 'CONTROL_CHARACTER' });
    expect(textIssue('one\ntwo\tthree', { multiline: true })).toBeUndefined();
    expect(textIssue('nul\u0000', { multiline: true })).toEqual({ code: 'CONTROL_CHARACTER' });
    expect(textIssue('half \uD83D')).toEqual({ code: 'UNPAIRED_SURROGATE' });
  });
});
