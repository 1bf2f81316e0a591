import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isAllowedOrigin } from '../src/index.js';

// decisions.md: an allowed origin or a true subdomain of one; scheme and port must match;
// `evilplatform.example` is not a subdomain of `platform.example`.

interface Parts {
  scheme: 'https' | 'http';
  labels: string[];
  port: string;
}

const DEFAULT_PORT = { https: '443', http: '80' } as const;
const serialize = ({ scheme, labels, port }: Parts) => `${scheme}://${labels.join('.')}${port === '' ? '' : `:${port}`}`;

/** The rule, written from decisions.md on the parts rather than on URL strings. */
function referenceAllows(candidate: Parts, allowed: Parts[]): boolean {
  const portOf = (p: Parts) => (p.port === '' ? DEFAULT_PORT[p.scheme] : p.port);
  const host = (p: Parts) => p.labels.map((l) => l.toLowerCase());
  return allowed.some((entry) => {
    if (entry.scheme !== candidate.scheme || portOf(entry) !== portOf(candidate)) return false;
    const [child, parent] = [host(candidate), host(entry)];
    // A true subdomain: the parent's labels, whole, at the end, with at least one label before them.
    return child.length >= parent.length && parent.every((label, i) => child[child.length - parent.length + i] === label);
  });
}

// Few, overlapping labels, so that equal hosts, subdomains and look-alikes all come up often.
const label = fc.constantFrom('platform', 'Platform', 'evilplatform', 'platform-evil', 'example', 'app', 'a', 'evil', 'com', 'xn--bcher-kva');
const parts = fc.record({
  scheme: fc.constantFrom<'https' | 'http'>('https', 'http'),
  labels: fc.array(label, { minLength: 1, maxLength: 4 }),
  port: fc.constantFrom('', '', '443', '80', '8443', '4000'),
});
const allowedParts = fc.array(parts, { minLength: 1, maxLength: 3 });

describe('isAllowedOrigin against a reference implementation of the rule', () => {
  it('decides generated origins as the rule does', () => {
    fc.assert(
      fc.property(parts, allowedParts, (candidate, allowed) => {
        expect(isAllowedOrigin(serialize(candidate), allowed.map(serialize))).toBe(referenceAllows(candidate, allowed));
      }),
      { numRuns: 2000 },
    );
  });

  it('decides subdomains of allowed origins as the rule does (biased towards true matches)', () => {
    fc.assert(
      fc.property(allowedParts, fc.nat(), fc.array(label, { maxLength: 2 }), fc.constantFrom('', '/'), (allowed, pick, prefix, slash) => {
        const parent = allowed[pick % allowed.length]!;
        const candidate = { ...parent, labels: [...prefix, ...parent.labels] };
        expect(isAllowedOrigin(serialize(candidate) + slash, allowed.map(serialize))).toBe(referenceAllows(candidate, allowed));
        expect(referenceAllows(candidate, allowed)).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  it('never throws and only ever allows an allowed host or one of its subdomains, whatever the strings', () => {
    const text = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 60 }),
      fc.webUrl().map((u) => new URL(u).origin),
      fc.tuple(fc.constantFrom('https://', 'http://', 'HTTPS://', '//', 'https:', 'javascript://', 'blob:https://'), fc.string({ maxLength: 40 })).map(([s, rest]) => s + rest),
    );
    // Allowed lists often hold the origin itself or its string with the first label cut off, so matches happen.
    const originAndAllowed = text.chain((origin) =>
      fc.tuple(fc.constant(origin), fc.array(fc.oneof(text, fc.constant(origin), fc.constant(origin.replace(/\/\/[^./]*\./, '//'))), { maxLength: 3 })),
    );
    let matches = 0;
    fc.assert(
      fc.property(originAndAllowed, ([origin, allowed]) => {
        const allows = isAllowedOrigin(origin, allowed);
        expect(typeof allows).toBe('boolean');
        if (!allows) return;
        matches += 1;
        const candidate = new URL(origin);
        expect(['https:', 'http:']).toContain(candidate.protocol);
        expect(candidate.href).toBe(`${candidate.origin}/`);
        const matched = allowed.some((entry) => {
          const parent = URL.canParse(entry) ? new URL(entry) : undefined;
          return (
            parent !== undefined &&
            parent.protocol === candidate.protocol &&
            parent.port === candidate.port &&
            (candidate.hostname === parent.hostname || candidate.hostname.endsWith(`.${parent.hostname}`))
          );
        });
        expect(matched, `${origin} allowed by ${JSON.stringify(allowed)}`).toBe(true);
      }),
      { numRuns: 2000 },
    );
    expect(matches).toBeGreaterThan(0);
    // 2,000 generated cases take about a second alone and far longer beside a busy suite: what is checked is the rule, not the speed.
  }, 60_000);

  it.each([
    ['https://evilplatform.example', ['https://platform.example'], false],
    ['https://platform.example.evil.com', ['https://platform.example'], false],
    ['https://platform.example.', ['https://platform.example'], false],
    ['https://app.platform.example', ['https://platform.example'], true],
    ['https://APP.platform.EXAMPLE', ['https://platform.example'], true],
    ['https://app.platform.example:443', ['https://platform.example'], true],
    ['https://app.platform.example', ['https://platform.example:443/'], true],
    ['https://app.platform.example:8443', ['https://platform.example'], false],
    ['http://app.platform.example', ['https://platform.example'], false],
    ['http://app.platform.example:443', ['https://platform.example'], false],
    ['https://platform.example@evil.com', ['https://platform.example'], false],
    ['https://evil.com#.platform.example', ['https://platform.example'], false],
    ['https://evil.com?.platform.example', ['https://platform.example'], false],
    ['https://evil.com/.platform.example', ['https://platform.example'], false],
    ['https://evil.com\\.platform.example', ['https://platform.example'], false],
    // URL hosts are percent-decoded: this is evil.com.platform.example, a true subdomain.
    ['https://evil.com%2eplatform.example', ['https://platform.example'], true],
    ['https://..platform.example', ['https://platform.example'], false],
    ['https://bücher.platform.example', ['https://platform.example'], true],
    ['https://xn--bcher-kva.example', ['https://bücher.example'], true],
    ['https://platform.example', ['https://app.platform.example'], false],
    ['https://1.127.0.0.1', ['https://127.0.0.1'], false],
    ['http://127.0.0.1', ['http://127.1'], true],
    ['https://platform.example', ['https://platform.example', '*'], true],
    ['https://evil.com', ['*', 'https://*', 'null'], false],
    ['null', ['null'], false],
  ] as const)('decides %s against %j as %s', (origin, allowed, expected) => {
    expect(isAllowedOrigin(origin, allowed)).toBe(expected);
  });
});
