import { useT } from '../../i18n/i18n';
import { Link } from '../../ui/Link';
import { EarningsChart } from '../insights/EarningsChart';
import { MyAppList } from './MyAppList';

export function MyAppsPage() {
  const t = useT();
  return (
    <>
      <div className="page-head">
        <h1>{t('myApps.heading')}</h1>
        <Link className="button-link" href="/developer/new">
          {t('myApps.submit')}
        </Link>
      </div>
      <EarningsChart />
      <MyAppList />
    </>
  );
}
