import { badInput } from '../../platform/errors.js';

/** The developer's share of every sale (../shared/spec/interface.md: 80%). */
export const DEVELOPER_SHARE_PERCENT = 80;
const GRAPHQL_INT_MAX = 2_147_483_647;

export interface RevenueSplit {
  amountVnd: number;
  developerShareVnd: number;
  platformShareVnd: number;
}

/** amount = points x POINT_VALUE_VND; developer share = floor(amount x 80 / 100), in integer arithmetic (../shared/spec/decisions.md). */
export function splitRevenue(pricePoints: number, pointValueVnd: number): RevenueSplit {
  const amount = BigInt(pricePoints) * BigInt(pointValueVnd);
  if (amount > BigInt(GRAPHQL_INT_MAX)) throw badInput('appId', 'This price is too large to charge at the platform’s point value');
  const developerShare = (amount * BigInt(DEVELOPER_SHARE_PERCENT)) / 100n;
  return { amountVnd: Number(amount), developerShareVnd: Number(developerShare), platformShareVnd: Number(amount - developerShare) };
}
