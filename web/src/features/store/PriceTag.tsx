import { useT } from '../../i18n/i18n';

export function PriceTag({ pricing, pricePoints }: { pricing: string; pricePoints?: number | null }) {
  const t = useT();
  return <span className="badge price">{pricing === 'PAID' ? t('store.price', { points: pricePoints ?? 0 }) : t('store.free')}</span>;
}
