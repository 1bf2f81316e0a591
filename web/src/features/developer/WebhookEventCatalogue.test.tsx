import { cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { LocaleProvider } from '../../i18n/i18n';
import { WebhookEventCatalogue } from './WebhookEventCatalogue';

afterEach(() => cleanup());

const EVENTS = ['app.purchased', 'app.installed', 'app.uninstalled', 'app.refunded', 'app.test'];

describe('the webhook event catalogue on the developer app page', () => {
  it('links every event to the JSON Schema Plaza serves for it, and the index of them all', () => {
    render(<WebhookEventCatalogue />);
    const section = screen.getByRole('region', { name: 'Webhook events' });
    for (const event of EVENTS) {
      expect(
        within(section)
          .getByRole('link', { name: `JSON Schema of ${event}` })
          .getAttribute('href'),
      ).toBe(`/webhooks/schemas/${event}.json`);
    }
    expect(within(section).getByRole('link', { name: 'All event schemas (JSON)' }).getAttribute('href')).toBe('/webhooks/schemas/');
    expect(section.textContent).toContain('a bought app installed again (amounts 0)');
    expect(section.textContent).toContain('Deduplicate on (event, purchase_id)');
  });

  it('speaks Vietnamese', () => {
    render(
      <LocaleProvider locale="vi">
        <WebhookEventCatalogue />
      </LocaleProvider>,
    );
    const section = screen.getByRole('region', { name: 'Sự kiện webhook' });
    expect(within(section).getByRole('link', { name: 'JSON Schema của app.refunded' }).getAttribute('href')).toBe('/webhooks/schemas/app.refunded.json');
    expect(within(section).getByRole('link', { name: 'Tất cả schema sự kiện (JSON)' })).toBeTruthy();
    expect(section.textContent).toContain('Chống trùng lặp theo (event, purchase_id)');
  });
});
