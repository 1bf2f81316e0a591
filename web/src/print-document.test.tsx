// A .tsx file because the web project runs src/**/*.test.tsx.
import { parse, print as graphqlPrint, type DocumentNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import * as documents from './gql/graphql';
import { print } from './print-document';

const everyDocument = Object.entries(documents).filter((entry): entry is [string, DocumentNode] => (entry[1] as Partial<DocumentNode> | undefined)?.kind === 'Document');

describe('print-document, the printer the build gives Apollo Client', () => {
  it('writes every document of the app as graphql-js does', () => {
    expect(everyDocument.length).toBeGreaterThan(50);
    for (const [name, document] of everyDocument) expect([name, print(document)]).toEqual([name, graphqlPrint(document)]);
  });

  it('writes the rest of the operation language as graphql-js does: aliases, directives, literals, escapes, long arguments', () => {
    const source = `
      query Q($a: [ID!]! = ["x"], $b: Boolean @deprecated) @live {
        alias: field(int: 1, float: -1.5e3, text: "quote \\" backslash \\\\ tab \\t nl \\n bell \\u0007 del \\u007F é", on: true, off: false, none: null, kind: RED, list: [1, [2]], object: {x: {y: $a}})
        other @include(if: $b) @skip(if: false) { ...Parts ... on Thing @defer { id } ... { id } }
        atTheLimit(a: "${'x'.repeat(63)}")
        overTheLimit(a: "${'x'.repeat(62)}")
        veryLongFieldNameThatTakesRoom(firstArgumentNameIsLong: "a value that is long", secondArgument: $a, third: 3) { id }
      }
      query { short }
      query ($only: Int) { withVariables(n: $only) }
      mutation { m }
      subscription S { s }
      fragment Parts on Thing @mark { id }
    `;
    const document = parse(source);
    expect(print(document)).toBe(graphqlPrint(document));
  });

  it('writes a block string literal as an ordinary string of the same value', () => {
    const document = parse('{ f(text: """\n  two\n  lines "quoted"\n""") }');
    expect(print(document)).toBe('{\n  f(text: "two\\nlines \\"quoted\\"")\n}');
  });

  it('refuses a schema, which only GraphiQL prints (with graphql-js)', () => {
    expect(() => print(parse('type T { id: ID }'))).toThrow(/not ObjectTypeDefinition/);
  });
});
