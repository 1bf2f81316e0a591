// The marketplace feature as other features see it (conventions.md 14): they import from here, never its files.
export { MarketplaceService } from './marketplace.service.js';
