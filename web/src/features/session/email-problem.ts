// The same rule as the server's, so the form never rejects an address the server would accept.
const EMAIL_SHAPE = /^[^@\s]{1,64}@[^@\s]{1,255}$/;

/** Why the value cannot be sent as an e-mail address, or null when it can. */
export function emailProblem(value: string): string | null {
  const email = value.trim();
  if (email === '') return 'Enter your e-mail address.';
  if (!EMAIL_SHAPE.test(email)) return 'E-mail address must look like name@example.com.';
  return null;
}
