import { maxChargeablePoints } from '../../platform/chargeable-price.js';
import { marketplaceErrors } from './marketplace.errors.js';

/** The developer's share of every sale, in percent: the platform keeps the other 20%. */
export const DEVELOPER_SHARE_PERCENT = 80;

export interface RevenueSplit {
  amountVnd: number;
  developerShareVnd: number;
  platformShareVnd: number;
}

/** amount = points x POINT_VALUE_VND; developer share = floor(amount x 80 / 100), in integer arithmetic, so no sale's split depends on floating-point rounding. */
export function splitRevenue(pricePoints: number, pointValueVnd: number): RevenueSplit {
  // Submission and edit refuse such a price (AppService); this catches one listed before POINT_VALUE_VND was raised.
  if (pricePoints > maxChargeablePoints(pointValueVnd)) throw marketplaceErrors.priceNotChargeable();
  const amount = BigInt(pricePoints) * BigInt(pointValueVnd);
  const developerShare = (amount * BigInt(DEVELOPER_SHARE_PERCENT)) / 100n;
  return { amountVnd: Number(amount), developerShareVnd: Number(developerShare), platformShareVnd: Number(amount - developerShare) };
}
