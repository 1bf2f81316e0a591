import { useFormat, useT } from '../../i18n/i18n';

/** `priceVnd`: what the price costs in đồng at the server's point value, shown beside the points ("30 points · ₫30,000"); absent when the server names none. */
export function PriceTag({ pricing, pricePoints, priceVnd }: { pricing: string; pricePoints?: number | null; priceVnd?: number | null }) {
  const t = useT();
  const format = useFormat();
  if (pricing !== 'PAID') return <span className="badge price">{t('store.free')}</span>;
  const points = pricePoints ?? 0;
  return <span className="badge price">{priceVnd == null ? t('store.price', { points }) : t('store.priceWithVnd', { points, vnd: format.vnd(priceVnd) })}</span>;
}
