import { useFragment, type FragmentType } from '../../gql';
import { storeAppPath } from '../../routes';
import { AppIcon } from '../../ui/AppIcon';
import { Link } from '../../ui/Link';
import { PriceTag } from './PriceTag';
import { StoreAppCardFields } from './store-apps';

export function StoreAppCard(props: { app: FragmentType<typeof StoreAppCardFields> }) {
  const app = useFragment(StoreAppCardFields, props.app);
  return (
    <li className="app-card card">
      <AppIcon src={app.iconUrl} name={app.name} size={48} />
      <div>
        <h2>
          <Link href={storeAppPath(app.id)}>{app.name}</Link>
        </h2>
        <p>{app.shortDescription}</p>
        <PriceTag pricing={app.pricing} pricePoints={app.pricePoints} />
      </div>
    </li>
  );
}
