import { useId, useRef, useState, type FormEvent } from 'react';
import { useT } from '../../i18n/i18n';
import { ErrorMessage } from '../../ui/ErrorMessage';
import { AuthError, signInWithEmail, type SessionUser } from './auth-api';
import { useAuthProblemText } from './auth-problem';
import { emailProblem } from './email-problem';

interface Problem {
  message: string;
  concernsEmail: boolean;
}

export function SignInForm({ onSignedIn, autoFocus = false }: { onSignedIn: (user: SessionUser) => void; autoFocus?: boolean }) {
  const t = useT();
  const problemText = useAuthProblemText();
  const [email, setEmail] = useState('');
  const [problem, setProblem] = useState<Problem | null>(null);
  const [sending, setSending] = useState(false);
  const emailInput = useRef<HTMLInputElement>(null);
  const emailId = useId();
  const problemId = useId();

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const invalid = emailProblem(email);
    if (invalid) {
      setProblem({ message: t(invalid), concernsEmail: true });
      emailInput.current?.focus();
      return;
    }
    setProblem(null);
    setSending(true);
    try {
      onSignedIn(await signInWithEmail(email.trim()));
    } catch (err) {
      const concernsEmail = err instanceof AuthError && err.field === 'email';
      setProblem({ message: problemText(err), concernsEmail });
      if (concernsEmail) emailInput.current?.focus();
    } finally {
      setSending(false);
    }
  }

  return (
    // noValidate: the browser's own bubbles differ per browser and are not announced reliably; ours are.
    // submit() shows its own failure in the form.
    <form className="sign-in" onSubmit={(event) => void submit(event)} noValidate aria-busy={sending}>
      <p className="hint">{t('session.devSignIn')}</p>
      <label htmlFor={emailId}>{t('session.email')}</label>
      <div className="field-row">
        <input
          id={emailId}
          ref={emailInput}
          type="email"
          name="email"
          autoComplete="email"
          placeholder="dev@example.com"
          autoFocus={autoFocus}
          value={email}
          onChange={(event) => setEmail(event.target.value)}
          aria-invalid={problem?.concernsEmail || undefined}
          aria-describedby={problem ? problemId : undefined}
        />
        <button type="submit" disabled={sending}>
          {sending ? t('session.signingIn') : t('shell.signIn')}
        </button>
      </div>
      {problem && <ErrorMessage id={problemId} message={problem.message} />}
    </form>
  );
}
