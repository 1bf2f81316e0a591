import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AxeResults, ImpactValue, Result } from 'axe-core';
import type { Page } from 'playwright-core';

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** What WCAG AA sign-off cannot ship with; moderate and minor findings are reported by axe but allowed. */
const BLOCKING: ReadonlySet<ImpactValue> = new Set(['serious', 'critical']);

/**
 * Runs axe-core in the page as it is now and returns its serious and critical violations, one readable
 * line per element: "[impact] rule-id: help (target) - what to fix". Empty means the page passes.
 * The source is evaluated through the DevTools protocol, so Plaza's script-src 'self' policy does not block it.
 */
export async function seriousAccessibilityViolations(page: Page, { skipRules = [] }: { skipRules?: string[] } = {}): Promise<string[]> {
  const alreadyInjected = await page.evaluate(() => 'axe' in window);
  if (!alreadyInjected) await page.evaluate(axeSource);
  const results = await page.evaluate(
    (skip) =>
      (window as unknown as { axe: { run(context: Document, options: object): Promise<AxeResults> } }).axe.run(document, {
        // Only violations are read, which spares axe collecting every pass on a busy machine.
        resultTypes: ['violations'],
        rules: Object.fromEntries(skip.map((rule) => [rule, { enabled: false }])),
      }),
    skipRules,
  );
  return results.violations.filter((violation) => violation.impact && BLOCKING.has(violation.impact)).flatMap(describeViolation);
}

function describeViolation(violation: Result): string[] {
  return violation.nodes.map((node) => {
    const summary = node.failureSummary?.replace(/\s+/g, ' ').trim() ?? '';
    return `[${violation.impact}] ${violation.id}: ${violation.help} (${node.target.join(' ')}) - ${summary}`;
  });
}
