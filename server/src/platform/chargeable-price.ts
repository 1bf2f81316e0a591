/**
 * The most one purchase can charge, in VND: a purchase's amountVnd is a GraphQL Int in the contract
 * (32-bit), so a larger amount could be neither answered nor charged.
 */
export const CHARGE_MAX_VND = 2_147_483_647;

/**
 * The largest price, in points, that a purchase can charge when a point is worth `pointValueVnd` VND
 * (POINT_VALUE_VND): 214,748 at 10,000 VND, 2,147,483 at the default 1,000. One rule for the purchase
 * that charges a price and for the submission and edit that set it, so a price review accepts is one
 * a buyer can pay.
 */
export function maxChargeablePoints(pointValueVnd: number): number {
  return Math.floor(CHARGE_MAX_VND / pointValueVnd);
}
