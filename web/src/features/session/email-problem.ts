// The same rule as the server's, so the form never rejects an address the server would accept.
const EMAIL_SHAPE = /^[^@\s]{1,64}@[^@\s]{1,255}$/;

/** Why the value cannot be sent as an e-mail address (the words' key), or null when it can. */
export function emailProblem(value: string): 'session.emailRequired' | 'session.emailShape' | null {
  const email = value.trim();
  if (email === '') return 'session.emailRequired';
  if (!EMAIL_SHAPE.test(email)) return 'session.emailShape';
  return null;
}
