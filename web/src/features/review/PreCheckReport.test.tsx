import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { LocaleProvider } from '../../i18n/i18n';
import type { Locale } from '../../i18n/strings';
import { PreCheckReport } from './PreCheckReport';

// The server writes each detail in English; check and outcome arrive as codes.
const report = {
  status: 'DONE',
  results: [
    { check: 'APP_URL_HTTPS', outcome: 'FAIL', detail: 'The App URL does not answer over HTTPS: connect ECONNREFUSED' },
    { check: 'NEW_CHECK', outcome: 'WARN', detail: 'A check this build does not know yet' },
  ],
};

const renderIn = (locale: Locale) =>
  render(
    <LocaleProvider locale={locale}>
      <PreCheckReport report={report} headingId="pre-checks" />
    </LocaleProvider>,
  );

afterEach(() => cleanup());

describe('PreCheckReport', () => {
  it('shows the server’s own detail to an English reader', () => {
    renderIn('en');
    expect(screen.getByText('The App URL does not answer over HTTPS: connect ECONNREFUSED')).toBeTruthy();
    expect(screen.queryByText('Details from the check (in English)')).toBeNull();
  });

  it('says a known result in Vietnamese, with the server’s English facts folded away and marked as English', () => {
    renderIn('vi');
    expect(screen.getByText('URL ứng dụng không trả lời qua HTTPS.')).toBeTruthy();
    expect(screen.getByText('URL ứng dụng trả lời qua HTTPS')).toBeTruthy();
    const facts = screen.getByText('The App URL does not answer over HTTPS: connect ECONNREFUSED');
    expect(facts.getAttribute('lang')).toBe('en');
    expect(facts.closest('details')?.open).toBe(false);
    // A check newer than this build: its code and the server's text, rather than nothing.
    expect(screen.getByText('NEW_CHECK')).toBeTruthy();
    expect(screen.getByText('A check this build does not know yet')).toBeTruthy();
  });
});
