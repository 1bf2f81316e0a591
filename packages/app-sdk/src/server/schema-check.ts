type Schema = { readonly [keyword: string]: unknown };

/** Keywords that describe and never constrain. */
const ANNOTATIONS = new Set(['$schema', '$id', 'title', 'description']);

/** RFC 3339 date-time, as JSON Schema's `format: date-time` means it: a real calendar day and time of day. */
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-](\d{2}):(\d{2}))$/;

function isDateTime(value: string): boolean {
  const match = DATE_TIME.exec(value);
  if (!match) return false;
  const [year, month, day, hour, minute, second, offsetHours = 0, offsetMinutes = 0] = [1, 2, 3, 4, 5, 6, 9, 10].map((group) => Number(match[group] ?? 0)) as number[];
  const daysInMonth = new Date(Date.UTC(year!, month!, 0)).getUTCDate();
  // Second 60 is a leap second, which only 23:59 (in UTC) has; Date.parse would roll "February 30" into March.
  const leapSecond = second === 60 && hour === 23 && minute === 59;
  return (
    month! >= 1 && month! <= 12 && day! >= 1 && day! <= daysInMonth && hour! <= 23 && minute! <= 59 && (second! <= 59 || leapSecond) && offsetHours <= 23 && offsetMinutes <= 59
  );
}

const at = (path: string) => path || 'the body';
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function typeProblem(type: unknown, value: unknown, path: string): string | undefined {
  if (type === 'object') return isObject(value) ? undefined : `${at(path)} must be a JSON object`;
  if (type === 'string') return typeof value === 'string' ? undefined : `${path} must be a string`;
  if (type === 'integer') return Number.isSafeInteger(value) ? undefined : `${path} must be an integer`;
  throw new TypeError(`schema type ${String(type)} is not checked by @plaza/app-sdk`);
}

/**
 * The first way `value` breaks `schema`, in words, or undefined when it holds. Only the keywords of the
 * event schemas Plaza serves (webhookEventSchema) are known, so the SDK and the catalogue judge a body by
 * one definition; a schema with any other keyword throws rather than be half-checked (a test walks every
 * event's schema through it).
 */
export function schemaViolation(schema: Schema, value: unknown, path = ''): string | undefined {
  for (const [keyword, rule] of Object.entries(schema)) {
    if (ANNOTATIONS.has(keyword) || keyword === 'then' || keyword === 'else') continue;
    const problem = keywordProblem(schema, keyword, rule, value, path);
    if (problem) return problem;
  }
  return undefined;
}

function keywordProblem(schema: Schema, keyword: string, rule: unknown, value: unknown, path: string): string | undefined {
  switch (keyword) {
    case 'type':
      return typeProblem(rule, value, path);
    case 'const':
      return value === rule ? undefined : `${path} must be ${JSON.stringify(rule)}`;
    case 'required': {
      if (!isObject(value)) return undefined;
      const missing = (rule as string[]).filter((name) => !Object.hasOwn(value, name));
      return missing.length ? `missing ${missing.join(', ')}` : undefined;
    }
    case 'properties':
      if (!isObject(value)) return undefined;
      for (const [name, fieldSchema] of Object.entries(rule as Record<string, Schema>)) {
        if (!Object.hasOwn(value, name)) continue;
        const problem = schemaViolation(fieldSchema, value[name], name);
        if (problem) return problem;
      }
      return undefined;
    case 'additionalProperties': {
      if (rule !== false) throw new TypeError('only additionalProperties: false is checked by @plaza/app-sdk');
      if (!isObject(value)) return undefined;
      const known = Object.keys((schema.properties as object | undefined) ?? {});
      const extra = Object.keys(value).filter((name) => !known.includes(name));
      return extra.length ? `unexpected field ${extra.join(', ')} (the body has exactly ${known.join(', ')})` : undefined;
    }
    case 'pattern':
      return typeof value !== 'string' || new RegExp(rule as string, 'u').test(value) ? undefined : `${path} is not in the expected form (${rule as string})`;
    case 'minLength':
      return typeof value !== 'string' || [...value].length >= (rule as number) ? undefined : `${path} must be at least ${rule as number} character(s)`;
    case 'minimum':
      return typeof value !== 'number' || value >= (rule as number) ? undefined : `${path} must be at least ${rule as number}`;
    case 'maximum':
      return typeof value !== 'number' || value <= (rule as number) ? undefined : `${path} must be at most ${rule as number}`;
    case 'format':
      if (rule !== 'date-time') throw new TypeError(`format ${String(rule)} is not checked by @plaza/app-sdk`);
      return typeof value !== 'string' || isDateTime(value) ? undefined : `${path} must be an ISO 8601 date-time`;
    case 'if': {
      const branch = schemaViolation(rule as Schema, value, path) === undefined ? schema.then : schema.else;
      return branch ? schemaViolation(branch as Schema, value, path) : undefined;
    }
    default:
      throw new TypeError(`schema keyword ${keyword} is not checked by @plaza/app-sdk`);
  }
}
