import { graphql } from '../../gql';

export const UpdatePreferencesMutation = graphql(`
  mutation UpdatePreferences($locale: String, $theme: String) {
    updatePreferences(locale: $locale, theme: $theme) {
      id
      locale
      theme
    }
  }
`);

export type Theme = 'light' | 'dark';

export const asTheme = (value: string | null | undefined): Theme => (value === 'dark' ? 'dark' : 'light');

/** The stylesheet keys its colours off this attribute, so every page follows the switch at once. */
export function applyTheme(theme: Theme, root: HTMLElement = document.documentElement): void {
  root.dataset.theme = theme;
}
