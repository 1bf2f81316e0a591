import {
  Kind,
  type ArgumentNode,
  type DefinitionNode,
  type DirectiveNode,
  type DocumentNode,
  type ExecutableDefinitionNode,
  type NameNode,
  type ObjectFieldNode,
  type SelectionNode,
  type SelectionSetNode,
  type TypeNode,
  type ValueNode,
  type VariableDefinitionNode,
} from 'graphql';

/** What an operation or a fragment is made of. */
type Printable =
  | DocumentNode
  | ExecutableDefinitionNode
  | VariableDefinitionNode
  | SelectionSetNode
  | SelectionNode
  | ArgumentNode
  | ObjectFieldNode
  | ValueNode
  | DirectiveNode
  | TypeNode
  | NameNode;

/**
 * graphql-js's print for the documents a page sends (operations and fragments), which is all Apollo Client
 * prints: the build gives Apollo's print this one instead of graphql-js's (vite.config.ts), whose printer also
 * writes schemas, block strings and descriptions and weighs about 7.7 KB in the store's first load against this
 * one's 1. Same text for the same document (print-document.test.ts prints every document of the app with both),
 * so the server, its logs and Apollo's dedup keys see what they saw. A block string literal is written as an
 * ordinary string of the same value.
 */
export function print(node: Printable): string {
  switch (node.kind) {
    case Kind.DOCUMENT:
      return join(node.definitions.map(printDefinition), '\n\n');
    case Kind.OPERATION_DEFINITION: {
      const variables = wrap('(', join(node.variableDefinitions?.map(print), ', '), ')');
      const prefix = join([node.operation, node.name ? node.name.value + variables : variables, directives(node.directives)], ' ');
      // An anonymous query without variables or directives is written in the short form, its selections alone.
      return (prefix === 'query' ? '' : prefix + ' ') + print(node.selectionSet);
    }
    case Kind.VARIABLE_DEFINITION:
      return print(node.variable) + ': ' + print(node.type) + wrap(' = ', node.defaultValue && print(node.defaultValue)) + wrap(' ', directives(node.directives));
    case Kind.SELECTION_SET:
      return block(node.selections.map(print));
    case Kind.FIELD: {
      const prefix = wrap('', node.alias?.value, ': ') + node.name.value;
      const args = node.arguments?.map(print) ?? [];
      const inline = join(args, ', ');
      // graphql-js breaks a field's arguments onto their own lines past 80 characters.
      const line = prefix + (prefix.length + inline.length + 2 > MAX_LINE_LENGTH ? wrap('(\n', indent(join(args, '\n')), '\n)') : wrap('(', inline, ')'));
      return line + wrap(' ', directives(node.directives)) + wrap(' ', node.selectionSet && print(node.selectionSet));
    }
    case Kind.ARGUMENT:
    case Kind.OBJECT_FIELD:
      return node.name.value + ': ' + print(node.value);
    case Kind.FRAGMENT_SPREAD:
      return '...' + node.name.value + wrap(' ', directives(node.directives));
    case Kind.INLINE_FRAGMENT:
      return join(['...', wrap('on ', node.typeCondition?.name.value), directives(node.directives), print(node.selectionSet)], ' ');
    case Kind.FRAGMENT_DEFINITION:
      return `fragment ${node.name.value} on ${node.typeCondition.name.value} ${wrap('', directives(node.directives), ' ')}${print(node.selectionSet)}`;
    case Kind.VARIABLE:
      return '$' + node.name.value;
    case Kind.INT:
    case Kind.FLOAT:
    case Kind.ENUM:
      return node.value;
    case Kind.STRING:
      return printString(node.value);
    case Kind.BOOLEAN:
      return node.value ? 'true' : 'false';
    case Kind.NULL:
      return 'null';
    case Kind.LIST:
      return '[' + join(node.values.map(print), ', ') + ']';
    case Kind.OBJECT:
      return '{' + join(node.fields.map(print), ', ') + '}';
    case Kind.DIRECTIVE:
      return '@' + node.name.value + wrap('(', join(node.arguments?.map(print), ', '), ')');
    case Kind.NAMED_TYPE:
      return node.name.value;
    case Kind.LIST_TYPE:
      return '[' + print(node.type) + ']';
    case Kind.NON_NULL_TYPE:
      return print(node.type) + '!';
    case Kind.NAME:
      return node.value;
  }
}

function printDefinition(definition: DefinitionNode): string {
  if (definition.kind === Kind.OPERATION_DEFINITION || definition.kind === Kind.FRAGMENT_DEFINITION) return print(definition);
  // Schemas are printed by GraphiQL with graphql-js itself; a page's request never holds one.
  throw new TypeError(`print-document prints operations and fragments, not ${definition.kind}`);
}

const MAX_LINE_LENGTH = 80;

const directives = (list: readonly DirectiveNode[] | undefined) => join(list?.map(print), ' ');

const join = (parts: readonly (string | undefined)[] | undefined, separator = '') => parts?.filter((part) => part).join(separator) ?? '';

const wrap = (start: string, text: string | undefined, end = '') => (text ? start + text + end : '');

const indent = (text: string) => wrap('  ', text.replace(/\n/g, '\n  '));

const block = (lines: readonly string[]) => wrap('{\n', indent(join(lines, '\n')), '\n}');

/** As graphql-js escapes a string: the quote, the backslash and the control characters. */
const printString = (value: string) =>
  `"${value.replace(/[\x00-\x1f\x22\x5c\x7f-\x9f]/g, (character) => ESCAPES[character] ?? `\\u${character.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`)}"`;

const ESCAPES: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t' };
