import type { ServerProblem } from '../../ui/graphql-errors';

/** Props that tie an input to the server's complaint about it, when the complaint names that field. */
export function problemProps(id: string, field: string, problem: ServerProblem | null) {
  const named = problem?.field === field;
  return { id, 'aria-invalid': named ? true : undefined, 'aria-describedby': named ? `${id}-problem` : undefined };
}
