import { useT } from '../../i18n/i18n';
import type { MessageKey } from '../../i18n/strings';
import type { Route } from '../../routes';
import { Link } from '../../ui/Link';

const SECTIONS: { href: string; label: MessageKey; kinds: Route['kind'][] }[] = [
  { href: '/', label: 'nav.store', kinds: ['store', 'store-app'] },
  { href: '/library', label: 'nav.library', kinds: ['library'] },
  { href: '/developer', label: 'nav.myApps', kinds: ['my-apps', 'submit-app', 'developer-app'] },
  { href: '/developer/tokens', label: 'nav.tokens', kinds: ['api-tokens'] },
  { href: '/graphiql', label: 'nav.graphiql', kinds: ['graphiql'] },
];

export function TopNav({ route }: { route: Route }) {
  const t = useT();
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
      </ul>
    </nav>
  );
}
