import { useState } from 'react';
import { useT } from '../../i18n/i18n';
import type { SessionUser } from './auth-api';
import { SignedInCard } from './SignedInCard';
import { SignInForm } from './SignInForm';

interface SessionPanelProps {
  initialUser: SessionUser | null;
  onSessionChange?: (user: SessionUser | null) => void;
}

export function SessionPanel({ initialUser, onSessionChange }: SessionPanelProps) {
  const t = useT();
  const [user, setUser] = useState(initialUser);
  // Focus follows a sign-in or sign-out, but a fresh page load leaves it where the browser puts it.
  const [changedHere, setChangedHere] = useState(false);

  function changeSession(next: SessionUser | null) {
    setUser(next);
    setChangedHere(true);
    onSessionChange?.(next);
  }

  return (
    <section className="card" aria-labelledby="session-heading">
      <h2 id="session-heading">{t('session.heading')}</h2>
      {user ? <SignedInCard user={user} onSignedOut={() => changeSession(null)} autoFocus={changedHere} /> : <SignInForm onSignedIn={changeSession} autoFocus={changedHere} />}
    </section>
  );
}
