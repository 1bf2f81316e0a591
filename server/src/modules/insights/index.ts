// The insights feature as the wiring (app/) sees it: it owns no table and no other feature uses it.
export { InsightsService } from './insights.service.js';
export { InsightsResolver } from './insights.resolver.js';
