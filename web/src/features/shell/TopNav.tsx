import { useT } from '../../i18n/i18n';
import type { MessageKey } from '../../i18n/strings';
import type { Route } from '../../routes';
import { Link } from '../../ui/Link';
import { useQuery } from '../../first-load-query';
import { graphql } from '../../gql';
import { useCallback, useEffect, useRef, useState, type RefObject } from 'react';
import { CurrentViewerQuery } from '../session/current-viewer';
import { DevelopersMenu, type NavSection } from './DevelopersMenu';

// Everyone's: the store, and one's library (a visitor is asked to sign in there).
const SECTIONS: { href: string; label: MessageKey; kinds: Route['kind'][] }[] = [
  { href: '/', label: 'nav.store', kinds: ['store', 'store-app'] },
  { href: '/library', label: 'nav.library', kinds: ['library'] },
];

// A developer's, behind the Developers menu (signed-out buyers saw My Apps, API tokens, Webhook Logs and GraphiQL in the row).
const DEVELOPER_SECTIONS: NavSection[] = [
  { href: '/developer', label: 'nav.myApps', kinds: ['my-apps', 'submit-app', 'developer-app'] },
  { href: '/developer/tokens', label: 'nav.tokens', kinds: ['api-tokens'] },
  { href: '/developer/webhooks', label: 'nav.webhooks', kinds: ['webhook-logs', 'webhook-delivery'] },
  { href: '/graphiql', label: 'nav.graphiql', kinds: ['graphiql'] },
];
const DEVELOPER_KINDS: ReadonlySet<Route['kind']> = new Set(DEVELOPER_SECTIONS.flatMap((section) => section.kinds));

/** Whether the signed-in person has apps: the developer portal's sections are theirs. */
const MyAppIdsQuery = graphql(`
  query MyAppIds {
    myApps {
      id
    }
  }
`);

// Shown only to those the server lets in; ADMIN implies REVIEWER.
const ROLE_SECTIONS: { href: string; label: MessageKey; kinds: Route['kind'][]; roles: string[] }[] = [
  { href: '/review', label: 'nav.review', kinds: ['review-queue', 'review-app'], roles: ['REVIEWER', 'ADMIN'] },
  { href: '/admin', label: 'nav.admin', kinds: ['admin'], roles: ['ADMIN'] },
];

export function TopNav({ route }: { route: Route }) {
  const t = useT();
  // The shell already asked for the viewer; reading the cache keeps the nav from sending a request of its own.
  const me = useQuery(CurrentViewerQuery, { fetchPolicy: 'cache-only' }).data?.me;
  const roles = me?.roles ?? [];
  const hasApps = (useQuery(MyAppIdsQuery, { skip: !me }).data?.myApps.length ?? 0) > 0;
  // Developers (and reviewers and admins, who work with apps) get the portal; another signed-in person one way in to it.
  const developer = !!me && (hasApps || roles.includes('REVIEWER') || roles.includes('ADMIN') || DEVELOPER_KINDS.has(route.kind));
  const roleSections = ROLE_SECTIONS.filter((section) => section.roles.some((role) => roles.includes(role)));
  const nav = useRef<HTMLElement>(null);
  const more = useHiddenSides(nav);
  return (
    <nav ref={nav} aria-label={t('nav.label')} className="top-nav" data-more-before={more.before ? '' : undefined} data-more-after={more.after ? '' : undefined}>
      <ul>
        {SECTIONS.map((section) => (
          <li key={section.href}>
            <Link href={section.href} aria-current={section.kinds.includes(route.kind) ? 'page' : undefined}>
              {t(section.label)}
            </Link>
          </li>
        ))}
        {developer ? (
          <li>
            <DevelopersMenu sections={DEVELOPER_SECTIONS} route={route} />
          </li>
        ) : (
          me && (
            <li>
              <Link href="/developer">{t('nav.forDevelopers')}</Link>
            </li>
          )
        )}
        {roleSections.map((section) => (
          <li key={section.href}>
            <Link href={section.href} aria-current={section.kinds.includes(route.kind) ? 'page' : undefined}>
              {t(section.label)}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/**
 * Which sides of a sideways-scrolling row hide links: on a phone the sections row is cut at the screen's
 * edge, and the stylesheet fades that edge so it shows there is more to scroll to.
 */
function useHiddenSides(ref: RefObject<HTMLElement | null>): { before: boolean; after: boolean } {
  const [sides, setSides] = useState({ before: false, after: false });
  const measure = useCallback(() => {
    const element = ref.current;
    if (!element) return;
    // A pixel of slack: zoomed pages report fractional scroll positions.
    const before = element.scrollLeft > 1;
    const after = element.scrollLeft + element.clientWidth < element.scrollWidth - 1;
    setSides((current) => (current.before === before && current.after === after ? current : { before, after }));
  }, [ref]);
  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    element.addEventListener('scroll', measure, { passive: true });
    const resized = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(measure);
    resized?.observe(element);
    return () => {
      element.removeEventListener('scroll', measure);
      resized?.disconnect();
    };
  }, [ref, measure]);
  // After every render too: the language and the sections a person may see change the row's width, not the nav's.
  useEffect(measure);
  return sides;
}
