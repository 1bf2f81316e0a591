import { useEffect, useId, useRef, useState } from 'react';
import { codeLabel, useT } from '../../i18n/i18n';
import { ErrorMessage } from '../../ui/ErrorMessage';
import { signOut, type SessionUser } from './auth-api';
import { useAuthProblemText } from './auth-problem';

export function SignedInCard({ user, onSignedOut, autoFocus = false }: { user: SessionUser; onSignedOut: () => void; autoFocus?: boolean }) {
  const t = useT();
  const problemText = useAuthProblemText();
  const [problem, setProblem] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const status = useRef<HTMLParagraphElement>(null);
  const rolesLabelId = useId();

  // The sign-in form that held focus is gone; keyboard and screen-reader users land on the outcome instead.
  useEffect(() => {
    if (autoFocus) status.current?.focus();
  }, [autoFocus]);

  async function signOutNow() {
    setProblem(null);
    setSending(true);
    try {
      await signOut();
      onSignedOut();
    } catch (err) {
      setProblem(problemText(err));
    } finally {
      setSending(false);
    }
  }

  return (
    <div className="signed-in">
      <p ref={status} tabIndex={-1} className="signed-in-as">
        {t('shell.signedInAs')} <strong>{user.email}</strong>
      </p>
      <div className="roles">
        <span id={rolesLabelId}>{t('session.roles')}</span>
        <ul aria-labelledby={rolesLabelId}>
          {user.roles.map((role) => (
            <li key={role} className="badge">
              {codeLabel(t, 'admin.role', role)}
            </li>
          ))}
        </ul>
      </div>
      {/* signOutNow() shows its own failure. */}
      <button type="button" onClick={() => void signOutNow()} disabled={sending}>
        {sending ? t('session.signingOut') : t('shell.signOut')}
      </button>
      {problem && <ErrorMessage message={problem} />}
    </div>
  );
}
