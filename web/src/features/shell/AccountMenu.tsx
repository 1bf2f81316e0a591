import { useCallback, useId, useRef, useState, type ReactNode } from 'react';
import { useT } from '../../i18n/i18n';
import { useDismiss } from '../../ui/useDismiss';

/**
 * The account's e-mail, preferences and Sign out behind one button, so the header stays one row at
 * 1280 px (with every section, in Vietnamese) and two short rows on a phone. The panel stays mounted
 * while closed: the preference switches in it apply the theme and language.
 */
export function AccountMenu({ email, onSignOut, children }: { email: string; onSignOut: () => void; children: ReactNode }) {
  const t = useT();
  const panelId = useId();
  const [open, setOpen] = useState(false);
  const menuRef = useRef<HTMLDivElement>(null);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const close = useCallback(() => setOpen(false), []);

  // As the notifications popover: Escape and a click anywhere else close it, so it never covers the page.
  useDismiss(open, close, menuRef, buttonRef);

  return (
    <div className="account-menu" ref={menuRef}>
      <button ref={buttonRef} type="button" className="account-button secondary" aria-expanded={open} aria-controls={panelId} onClick={() => setOpen(!open)}>
        <span className="avatar" aria-hidden="true">
          {email.charAt(0).toUpperCase()}
        </span>
        {/* "Signed in as <email>" names the button, and is what the browser tests wait for after signing in. */}
        <span className="visually-hidden">
          {t('shell.signedInAs')} {email}
        </span>
      </button>
      <div id={panelId} className="account-panel card" hidden={!open}>
        <p className="viewer-email">
          <strong>{email}</strong>
        </p>
        {children}
        <button type="button" className="secondary" onClick={onSignOut}>
          {t('shell.signOut')}
        </button>
      </div>
    </div>
  );
}
