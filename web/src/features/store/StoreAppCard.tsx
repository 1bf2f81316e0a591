import { useFragment, type FragmentType } from '../../gql';
import { useT } from '../../i18n/i18n';
import { launcherPath, storeAppPath } from '../../routes';
import { AppIcon } from '../../ui/AppIcon';
import { Link } from '../../ui/Link';
import { PriceTag } from './PriceTag';
import { StoreAppCardFields } from './store-apps';

/** `owned`: in the person's library, so the card says so and opens it instead of only pricing it (issue 27, finding 12). */
export function StoreAppCard(props: { app: FragmentType<typeof StoreAppCardFields>; owned?: boolean }) {
  const t = useT();
  const app = useFragment(StoreAppCardFields, props.app);
  return (
    <li className="app-card card">
      <AppIcon src={app.iconUrl} name={app.name} size={48} />
      <div>
        <h2>
          <Link href={storeAppPath(app.id)}>{app.name}</Link>
        </h2>
        <p>{app.shortDescription}</p>
        {props.owned ? (
          <p className="owned-row">
            <span className="badge status-approved">{t('store.owned')}</span>{' '}
            <a href={launcherPath(app.id)} aria-label={t('store.openOwnedNamed', { name: app.name })}>
              {t('store.openOwned')}
            </a>
          </p>
        ) : (
          <PriceTag pricing={app.pricing} pricePoints={app.pricePoints} priceVnd={app.priceVnd} />
        )}
      </div>
    </li>
  );
}
