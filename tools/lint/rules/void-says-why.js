// `void p` drops a promise on purpose (no-floating-promises lets it pass); whoever reads it next needs to know
// why nothing is lost. So a `void` of a promise needs a comment that says why: on its own line, on the line
// above it, or on the line above the statement (or class member, or object property) it is part of. Only
// promises: `void` of any other value (a write's boolean, a name kept for the compiler) drops nothing that fails.
// It needs type information, so it judges only the files linted with types (the TypeScript ones).

/**
 * The node a reason above would be written over: the statement, member or property holding the expression; the
 * whole `if` for a branch written without braces (`if (a) void p(); else void q();` is read as one).
 */
function holderOf(node) {
  for (let at = node.parent; at; at = at.parent) {
    if (/(Statement|Declaration)$/.test(at.type) || at.type === 'PropertyDefinition' || at.type === 'MethodDefinition' || at.type === 'Property') {
      while (at.parent?.type === 'IfStatement' && at.parent.test !== at) at = at.parent;
      return at;
    }
  }
  return node;
}

/** Whether `type` (or one member of a union) has a `then` method: a promise, or anything awaited like one. */
function isThenable(checker, type) {
  if (type.isUnion()) return type.types.some((member) => isThenable(checker, member));
  const then = checker.getPropertyOfType(checker.getApparentType(type), 'then');
  return then !== undefined && checker.getTypeOfSymbol(then).getCallSignatures().length > 0;
}

/** @type {import('eslint').Rule.RuleModule} */
export const voidSaysWhy = {
  meta: {
    type: 'suggestion',
    docs: { description: 'A `void` expression (a promise dropped on purpose) has a comment saying why nothing is lost' },
    schema: [],
    messages: {
      why: '`void` drops this promise on purpose: say why on the line above (it never rejects, or its failure is handled or shown elsewhere).',
    },
  },
  create(context) {
    const source = context.sourceCode;
    const services = source.parserServices;
    if (!services?.program || !services.esTreeNodeToTSNodeMap) return {};
    const checker = services.program.getTypeChecker();
    let commentLines;
    /** The lines a comment ends on, and every line a comment touches. */
    const lines = () => {
      if (commentLines) return commentLines;
      const ending = new Set();
      const touched = new Set();
      for (const comment of source.getAllComments()) {
        ending.add(comment.loc.end.line);
        for (let line = comment.loc.start.line; line <= comment.loc.end.line; line++) touched.add(line);
      }
      return (commentLines = { ending, touched });
    };
    return {
      UnaryExpression(node) {
        if (node.operator !== 'void') return;
        if (!isThenable(checker, checker.getTypeAtLocation(services.esTreeNodeToTSNodeMap.get(node.argument)))) return;
        const { ending, touched } = lines();
        const line = node.loc.start.line;
        const holderLine = holderOf(node).loc.start.line;
        if (touched.has(line) || ending.has(line - 1) || ending.has(holderLine - 1) || touched.has(holderLine)) return;
        context.report({ node, messageId: 'why' });
      },
    };
  },
};

export default { rules: { 'void-says-why': voidSaysWhy } };
