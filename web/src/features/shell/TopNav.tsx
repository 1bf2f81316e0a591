import { useT } from '../../i18n/i18n';
import type { MessageKey } from '../../i18n/strings';
import type { Route } from '../../routes';
import { Link } from '../../ui/Link';
import { useQuery } from '@apollo/client/react';
import { CurrentViewerQuery } from '../session/current-viewer';

const SECTIONS: { href: string; label: MessageKey; kinds: Route['kind'][] }[] = [
  { href: '/', label: 'nav.store', kinds: ['store', 'store-app'] },
  { href: '/library', label: 'nav.library', kinds: ['library'] },
  { href: '/developer', label: 'nav.myApps', kinds: ['my-apps', 'submit-app', 'developer-app'] },
  { href: '/developer/tokens', label: 'nav.tokens', kinds: ['api-tokens'] },
  { href: '/developer/webhooks', label: 'nav.webhooks', kinds: ['webhook-logs', 'webhook-delivery'] },
  { href: '/graphiql', label: 'nav.graphiql', kinds: ['graphiql'] },
];

// Shown only to those the server lets in; ADMIN implies REVIEWER.
const ROLE_SECTIONS: { href: string; label: MessageKey; kinds: Route['kind'][]; roles: string[] }[] = [
  { href: '/review', label: 'nav.review', kinds: ['review-queue', 'review-app'], roles: ['REVIEWER', 'ADMIN'] },
  { href: '/admin', label: 'nav.admin', kinds: ['admin'], roles: ['ADMIN'] },
];

export function TopNav({ route }: { route: Route }) {
  const t = useT();
  // The shell already asked for the viewer; reading the cache keeps the nav from sending a request of its own.
  const roles = useQuery(CurrentViewerQuery, { fetchPolicy: 'cache-only' }).data?.me?.roles ?? [];
  const roleSections = ROLE_SECTIONS.filter((section) => section.roles.some((role) => roles.includes(role)));
  return (
    <nav aria-label={t('nav.label')} className="top-nav">
      <ul>
        {SECTIONS.map((section) => (
          <li key={section.href}>
            <Link href={section.href} aria-current={section.kinds.includes(route.kind) ? 'page' : undefined}>
              {t(section.label)}
            </Link>
          </li>
        ))}
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
