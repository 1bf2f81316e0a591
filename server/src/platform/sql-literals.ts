/**
 * The code's own constants (enum values) as SQL string literals, comma-separated, so that a statement
 * spells a status or trigger as the code does. Only for constants, never for input: each is checked to
 * be a plain upper-case word, so no quoting can be needed.
 */
export function sqlLiterals(...values: readonly string[]): string {
  return values
    .map((value) => {
      if (!/^[A-Z_]+$/.test(value)) throw new Error(`not a plain constant: ${value}`);
      return `'${value}'`;
    })
    .join(', ');
}

/** Any constant text of the code (a message, a header name) as one SQL string literal, quotes doubled. Never for input. */
export const sqlText = (value: string) => `'${value.replaceAll("'", "''")}'`;
