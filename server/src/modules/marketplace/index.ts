// The marketplace feature as other features see it (conventions.md 14): they import from here, never its files.
export { MarketplaceService } from './marketplace.service.js';
// What the store records its events through (the webhooks feature's, handed in by app/).
export type { StoreEvent, StoreEvents } from './store-events.js';

// What the wiring (app/) builds the server from: the resolvers and the tables' entities.
export { AppEarningsResolver, InstallationResolver, MarketplaceResolver, PurchaseResolver } from './marketplace.resolver.js';
export { Installation, PointMovement, Purchase, RevenueEntry } from './marketplace.entities.js';
