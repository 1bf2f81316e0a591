import { useT } from '../../i18n/i18n';
import { PlatformInsights } from '../insights/PlatformInsights';
import { CreditPointsForm } from './CreditPointsForm';
import { DeliveryFailures } from './DeliveryFailures';
import { RefundForm } from './RefundForm';
import { UserRoles } from './UserRoles';

export function AdminPage() {
  const t = useT();
  return (
    <>
      <h1>{t('admin.heading')}</h1>
      <PlatformInsights />
      <DeliveryFailures />
      <RefundForm />
      <CreditPointsForm />
      <UserRoles />
    </>
  );
}
