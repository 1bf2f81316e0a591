import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { AppIcon } from './AppIcon';

afterEach(cleanup);

describe('AppIcon', () => {
  it("shows the app's initial instead of a broken image when the icon cannot be loaded", () => {
    const { container, rerender } = render(<AppIcon src="https://icons.example/quiz.png" name="quiz time" size={48} alt="Quiz Time icon" />);
    const image = container.querySelector('img')!;
    expect(image.getAttribute('src')).toBe('https://icons.example/quiz.png');

    fireEvent.error(image);
    expect(container.querySelector('img')).toBeNull();
    expect(screen.getByRole('img', { name: 'Quiz Time icon' }).textContent).toBe('Q');

    // A fixed icon URL gets its chance again.
    rerender(<AppIcon src="https://icons.example/quiz-v2.png" name="quiz time" size={48} alt="Quiz Time icon" />);
    expect(container.querySelector('img')!.getAttribute('src')).toBe('https://icons.example/quiz-v2.png');
  });
});
