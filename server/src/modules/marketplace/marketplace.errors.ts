import { conflict, ErrorCode, forbidden, PlazaError } from '../../platform/errors.js';

/** `extensions.reason` of the store's refusals: stable values clients branch on (the messages are for people). */
export const MarketplaceErrorReason = {
  APP_NOT_APPROVED: 'APP_NOT_APPROVED',
  FREE_APP: 'FREE_APP',
  PAID_APP: 'PAID_APP',
  ALREADY_OWNED: 'ALREADY_OWNED',
  NOT_OWNED: 'NOT_OWNED',
  INSUFFICIENT_POINTS: 'INSUFFICIENT_POINTS',
  ALREADY_REFUNDED: 'ALREADY_REFUNDED',
  /** BAD_USER_INPUT on purchaseId: a free reinstall of a bought app; its original purchase is the one to refund. */
  FREE_REINSTALL: 'FREE_REINSTALL',
  /** BAD_USER_INPUT on purchaseId: a free app's install, which moved no points. */
  FREE_INSTALL: 'FREE_INSTALL',
  /** BAD_USER_INPUT on appId: a price listed before POINT_VALUE_VND was raised, now more than one purchase can charge. */
  PRICE_NOT_CHARGEABLE: 'PRICE_NOT_CHARGEABLE',
  /** FORBIDDEN: apps are opened (launchApp) by people signed in, not with an API token. */
  SESSION_REQUIRED: 'SESSION_REQUIRED',
} as const;
export type MarketplaceErrorReason = (typeof MarketplaceErrorReason)[keyof typeof MarketplaceErrorReason];

const badAppId = (message: string, reason: MarketplaceErrorReason) => new PlazaError(ErrorCode.BAD_USER_INPUT, message, 'appId', reason);

export const marketplaceErrors = {
  appNotApproved: () => badAppId('This app is not approved, so it is not in the store', MarketplaceErrorReason.APP_NOT_APPROVED),
  freeApp: () => badAppId('This app is free: install it instead of buying it', MarketplaceErrorReason.FREE_APP),
  paidApp: (pricePoints: number | null) => badAppId(`This app costs ${pricePoints} points: buy it instead of installing it for free`, MarketplaceErrorReason.PAID_APP),
  alreadyBought: () => conflict('You already own this app', MarketplaceErrorReason.ALREADY_OWNED),
  alreadyInstalled: () => conflict('This app is already in your library', MarketplaceErrorReason.ALREADY_OWNED),
  notInLibrary: () => conflict('This app is not in your library', MarketplaceErrorReason.NOT_OWNED),
  insufficientPoints: (pricePoints: number, balance: number) =>
    conflict(`Not enough points: this app costs ${pricePoints} points and you have ${balance}`, MarketplaceErrorReason.INSUFFICIENT_POINTS),
  alreadyRefunded: (purchaseId: string) => conflict(`Purchase ${purchaseId} was already refunded`, MarketplaceErrorReason.ALREADY_REFUNDED),
  freeReinstall: (original: string | null | undefined) =>
    new PlazaError(
      ErrorCode.BAD_USER_INPUT,
      `This is a free reinstall of a bought app: refund the original purchase${original ? ` ${original}` : ''} instead`,
      'purchaseId',
      MarketplaceErrorReason.FREE_REINSTALL,
    ),
  freeInstall: () => new PlazaError(ErrorCode.BAD_USER_INPUT, 'This is a free install: there is nothing to refund', 'purchaseId', MarketplaceErrorReason.FREE_INSTALL),
  priceNotChargeable: () => badAppId('This price is too large to charge at the platform’s point value', MarketplaceErrorReason.PRICE_NOT_CHARGEABLE),
  sessionRequired: () => forbidden('Apps are opened by people, not API tokens', MarketplaceErrorReason.SESSION_REQUIRED),
  notOwnedToOpen: () => forbidden('Install or buy this app to open it', MarketplaceErrorReason.NOT_OWNED),
};
