import { useCallback, useId, useLayoutEffect, useRef, useState, type CSSProperties } from 'react';
import { useT } from '../../i18n/i18n';
import type { MessageKey } from '../../i18n/strings';
import type { Route } from '../../routes';
import { Link } from '../../ui/Link';
import { useDismiss } from '../../ui/useDismiss';

export interface NavSection {
  href: string;
  label: MessageKey;
  kinds: Route['kind'][];
}

// Wide enough for the longest Vietnamese section name; kept in step with .developers-menu-list in styles.css.
const MENU_WIDTH_PX = 256;

/**
 * The developer portal's sections behind one "Developers" button, a disclosure (WAI-ARIA's navigation
 * menu pattern: a button with aria-expanded and a list of links, not role=menu): the store's row stays
 * the store's, and a developer still reaches each section in two steps. Escape or a click elsewhere closes
 * it; the list is placed fixed under the button, because the sections row scrolls sideways on a phone and
 * would cut off anything hanging out of it.
 */
export function DevelopersMenu({ sections, route }: { sections: NavSection[]; route: Route }) {
  const t = useT();
  const listId = useId();
  const [open, setOpen] = useState(false);
  const [place, setPlace] = useState<CSSProperties>({});
  const menuRef = useRef<HTMLDivElement>(null);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const close = useCallback(() => setOpen(false), []);
  useDismiss(open, close, menuRef, buttonRef);
  const current = sections.some((section) => section.kinds.includes(route.kind));

  useLayoutEffect(() => {
    if (!open || !buttonRef.current) return;
    const box = buttonRef.current.getBoundingClientRect();
    const left = Math.max(8, Math.min(box.left, document.documentElement.clientWidth - MENU_WIDTH_PX - 8));
    setPlace({ top: box.bottom + 4, left });
  }, [open]);

  return (
    <div className="developers-menu" ref={menuRef}>
      <button
        ref={buttonRef}
        type="button"
        className={`developers-menu-button${current ? ' current' : ''}`}
        aria-expanded={open}
        aria-controls={listId}
        onClick={() => setOpen(!open)}
      >
        {t('nav.developers')}
        <span aria-hidden="true" className="developers-menu-caret" />
      </button>
      <ul id={listId} className="developers-menu-list card" hidden={!open} style={place}>
        {sections.map((section) => (
          <li key={section.href}>
            <Link href={section.href} aria-current={section.kinds.includes(route.kind) ? 'page' : undefined} onClick={close}>
              {t(section.label)}
            </Link>
          </li>
        ))}
      </ul>
    </div>
  );
}
