import { CliError } from './errors.js';

const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** An instant: ISO 8601 (2026-11-23T10:00:00Z) or a duration before now (90s, 30m, 2h, 7d). */
export function parseTime(flag: string, raw: string, now = Date.now()): Date {
  const relative = /^(\d+)([smhd])$/.exec(raw.trim());
  if (relative) return new Date(now - Number(relative[1]) * UNITS[relative[2]!]!);
  const parsed = /^\d{4}-\d{2}-\d{2}/.test(raw) ? new Date(raw) : new Date(Number.NaN);
  if (Number.isNaN(parsed.getTime())) throw new CliError(`${flag} must be a time such as 2026-11-23T10:00:00Z or a duration ago such as 30m, 2h or 7d, not "${raw}"`);
  return parsed;
}

/** plaza deliveries without --limit: the newest this many. */
export const DEFAULT_LIMIT = 500;

export const EVENTS = ['app.purchased', 'app.installed', 'app.uninstalled', 'app.refunded', 'app.test'] as const;
export const STATUSES = ['PENDING', 'RETRYING', 'SUCCEEDED', 'FAILED'] as const;

/** app.purchased or APP_PURCHASED -> APP_PURCHASED (the GraphQL enum). */
export function parseEvent(flag: string, raw: string): string {
  const wire = raw.toLowerCase().replace('_', '.');
  if (!(EVENTS as readonly string[]).includes(wire)) throw new CliError(`${flag} must be one of ${EVENTS.join(', ')}, not "${raw}"`);
  return wire.toUpperCase().replace('.', '_');
}

export function parseStatus(flag: string, raw: string): string {
  const status = raw.toUpperCase();
  if (!(STATUSES as readonly string[]).includes(status)) throw new CliError(`${flag} must be one of ${STATUSES.join(', ').toLowerCase()}, not "${raw}"`);
  return status;
}

export function parsePositiveInt(flag: string, raw: string): number {
  if (!/^\d+$/.test(raw) || Number(raw) < 1) throw new CliError(`${flag} must be a whole number of at least 1, not "${raw}"`);
  return Number(raw);
}
