import type { Page } from 'playwright-core';

/** Elements under `selector` whose content is wider than their box (clipped or spilling), described for the failure message. */
export function clipped(page: Page, selector: string): Promise<string[]> {
  return page.$$eval(selector, (elements) =>
    elements.filter((element) => element.scrollWidth > element.clientWidth + 1).map((element) => `${element.textContent} (${element.scrollWidth} > ${element.clientWidth})`),
  );
}

/** Elements under `selector` whose text runs over more than one line (a purchase id on three lines, a badge as a blob). */
export function wrapped(page: Page, selector: string): Promise<string[]> {
  return page.$$eval(selector, (elements) =>
    elements
      .filter((element) => {
        const range = document.createRange();
        range.selectNodeContents(element);
        const lineTops = new Set([...range.getClientRects()].filter((rect) => rect.width > 0).map((rect) => Math.round(rect.top)));
        return lineTops.size > 1;
      })
      .map((element) => element.textContent ?? ''),
  );
}
