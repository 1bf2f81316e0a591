import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AccountMenu } from './AccountMenu';

afterEach(() => cleanup());

function renderMenu(onSignOut = vi.fn()) {
  render(
    <>
      <AccountMenu email="ana@example.com" onSignOut={onSignOut}>
        <label htmlFor="language">Language</label>
        <select id="language" defaultValue="en">
          <option value="en">English</option>
        </select>
      </AccountMenu>
      <p>The page under the menu</p>
    </>,
  );
  return { button: screen.getByRole('button', { name: 'Signed in as ana@example.com' }), onSignOut };
}

describe('AccountMenu', () => {
  it('opens on its button, and Escape or a click elsewhere closes it, so it never covers the page', () => {
    const { button } = renderMenu();
    expect(button.getAttribute('aria-expanded')).toBe('false');
    // Mounted while closed: the preference switches in it keep applying the theme and language.
    expect(screen.getByLabelText('Language', { selector: 'select' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Sign out' })).toBeNull();

    fireEvent.click(button);
    expect(button.getAttribute('aria-expanded')).toBe('true');
    expect(screen.getByText('ana@example.com', { selector: 'strong' })).toBeTruthy();
    fireEvent.keyDown(document, { key: 'Escape' });
    expect(button.getAttribute('aria-expanded')).toBe('false');
    expect(document.activeElement).toBe(button);

    fireEvent.click(button);
    fireEvent.pointerDown(screen.getByText('The page under the menu'));
    expect(button.getAttribute('aria-expanded')).toBe('false');
  });

  it('signs out from inside the menu', () => {
    const { button, onSignOut } = renderMenu();
    fireEvent.click(button);
    fireEvent.click(screen.getByRole('button', { name: 'Sign out' }));
    expect(onSignOut).toHaveBeenCalledTimes(1);
  });
});
