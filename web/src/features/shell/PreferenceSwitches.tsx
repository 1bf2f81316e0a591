import { useEffect, useId } from 'react';
import { useMutation } from '../../first-load-query';
import { useT } from '../../i18n/i18n';
import type { Locale } from '../../i18n/strings';
import { ErrorMessage } from '../../ui/ErrorMessage';
import { applyTheme, UpdatePreferencesMutation, type Theme } from './preferences';

interface PreferenceSwitchesProps {
  locale: Locale;
  theme: Theme;
  onChange: (next: { locale: Locale; theme: Theme }) => void;
}

export function PreferenceSwitches({ locale, theme, onChange }: PreferenceSwitchesProps) {
  const t = useT();
  const localeId = useId();
  const themeId = useId();
  const [save, { error }] = useMutation(UpdatePreferencesMutation);

  useEffect(() => {
    applyTheme(theme);
    document.documentElement.lang = locale;
  }, [theme, locale]);

  function change(next: { locale: Locale; theme: Theme }) {
    // Applied at once; the saved copy is what apps opened later receive.
    onChange(next);
    // Its failure shows from the mutation's error below.
    void save({ variables: next }).catch(() => undefined);
  }

  return (
    <div className="preferences">
      <label htmlFor={localeId}>{t('shell.language')}</label>
      <select id={localeId} value={locale} onChange={(event) => change({ locale: event.target.value as Locale, theme })}>
        <option value="en">English</option>
        <option value="vi" lang="vi">
          Tiếng Việt
        </option>
      </select>
      <label htmlFor={themeId}>{t('shell.theme')}</label>
      <select id={themeId} value={theme} onChange={(event) => change({ locale, theme: event.target.value as Theme })}>
        <option value="light">{t('shell.themeLight')}</option>
        <option value="dark">{t('shell.themeDark')}</option>
      </select>
      {error && <ErrorMessage message={t('shell.savePreferencesFailed', { message: error.message })} />}
    </div>
  );
}
