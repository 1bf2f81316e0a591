import { useQuery } from '@apollo/client/react';
import { useId, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { codeLabel, useT } from '../../i18n/i18n';
import { ErrorMessage } from '../../ui/ErrorMessage';
import { serverProblem, useProblemText } from '../../ui/graphql-errors';
import { AppCategoriesQuery } from './app-form';
import type { WebhookEventType } from '../../gql/graphql';
import {
  charCount,
  eventWireName,
  httpsProblem,
  localProblems,
  LONG_DESCRIPTION_MAX_CHARS,
  SCREENSHOTS_MAX,
  screenshotProblem,
  SHORT_DESCRIPTION_MAX_CHARS,
  SUBSCRIBABLE_EVENTS,
  type AppField,
  type AppFormValues,
} from './app-rules';

interface AppFormProps {
  initialValues: AppFormValues;
  submitLabel: string;
  busyLabel: string;
  onSubmit: (values: AppFormValues) => Promise<void>;
  /** Editing an approved app: say which changes go back to review and which take effect at once. */
  approved?: boolean;
}

const FIELD_ORDER: AppField[] = [
  'name',
  'shortDescription',
  'appUrl',
  'iconUrl',
  'longDescription',
  'screenshotUrls',
  'supportUrl',
  'privacyPolicyUrl',
  'category',
  'pricing',
  'pricePoints',
  'webhookUrl',
  'webhookEvents',
];

/** The server names one screenshot ("screenshotUrls[1]"): the form has one field for them all, and says which. */
const SCREENSHOT_FIELD = /^screenshotUrls\[(\d+)\]$/;

export function AppForm({ initialValues, submitLabel, busyLabel, onSubmit, approved = false }: AppFormProps) {
  const t = useT();
  const problemText = useProblemText();
  const categories = useQuery(AppCategoriesQuery);
  const [values, setValues] = useState(initialValues);
  const [problems, setProblems] = useState<Partial<Record<AppField, string>>>({});
  const [formProblem, setFormProblem] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  const formId = useId();
  const idOf = (field: AppField) => `${formId}-${field}`;

  function set<K extends AppField>(field: K, value: AppFormValues[K]) {
    setValues((previous) => ({ ...previous, [field]: value }));
    // The problem was about the old value; the live hints speak for the new one.
    setProblems((previous) => ({ ...previous, [field]: undefined }));
  }

  function focusFirst(found: Partial<Record<AppField, string>>) {
    const first = FIELD_ORDER.find((field) => found[field]);
    if (first) (form.current?.ownerDocument.getElementById(idOf(first)) as HTMLElement | null)?.focus();
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    setFormProblem(null);
    const found = localProblems(values, t);
    if (values.webhookEvents.length === 0) found.webhookEvents = t('form.eventsNone');
    setProblems(found);
    if (Object.keys(found).length > 0) return focusFirst(found);
    setSending(true);
    try {
      await onSubmit(values);
    } catch (err) {
      const problem = serverProblem(err);
      const named = problem.field?.replace(/^input\./, '');
      const screenshot = named ? SCREENSHOT_FIELD.exec(named) : null;
      const message = screenshot ? screenshotProblem(t, Number(screenshot[1]), problemText(problem)) : problemText(problem);
      const field = (screenshot ? 'screenshotUrls' : named) as AppField | undefined;
      if (field && FIELD_ORDER.includes(field)) {
        setProblems({ [field]: message });
        focusFirst({ [field]: message });
      } else setFormProblem(message);
    } finally {
      setSending(false);
    }
  }

  const descriptionCount = charCount(values.shortDescription);
  const longCount = charCount(values.longDescription.trim());
  const fieldProps = (field: AppField, hintId?: string) => {
    const describedBy = [hintId, problems[field] ? `${idOf(field)}-problem` : undefined].filter(Boolean).join(' ');
    return { id: idOf(field), 'aria-invalid': problems[field] ? true : undefined, 'aria-describedby': describedBy || undefined };
  };
  const problemFor = (field: AppField) => problems[field] && <FieldProblem id={`${idOf(field)}-problem`}>{problems[field]}</FieldProblem>;

  return (
    // submit() shows its own failure in the form.
    <form ref={form} className="app-form" onSubmit={(event) => void submit(event)} noValidate aria-busy={sending}>
      {approved && (
        <p className="notice" role="note">
          {t('form.approvedNotice')}
        </p>
      )}
      <div className="field">
        <label htmlFor={idOf('name')}>{t('form.name')}</label>
        <input {...fieldProps('name')} value={values.name} onChange={(event) => set('name', event.target.value)} autoComplete="off" />
        {problemFor('name')}
      </div>

      <div className="field">
        <label htmlFor={idOf('shortDescription')}>{t('form.shortDescription')}</label>
        <input
          {...fieldProps('shortDescription', `${idOf('shortDescription')}-count`)}
          value={values.shortDescription}
          onChange={(event) => set('shortDescription', event.target.value)}
        />
        <p id={`${idOf('shortDescription')}-count`} className={descriptionCount > SHORT_DESCRIPTION_MAX_CHARS ? 'hint over-limit' : 'hint'} aria-live="polite">
          {t('form.counter', { count: descriptionCount, max: SHORT_DESCRIPTION_MAX_CHARS })}
        </p>
        {problemFor('shortDescription')}
      </div>

      <UrlField
        label={t('form.appUrl')}
        hint={t('form.appUrlHint')}
        field="appUrl"
        value={values.appUrl}
        onChange={(value) => set('appUrl', value)}
        fieldProps={fieldProps}
        problem={problemFor('appUrl')}
      />
      <UrlField
        label={t('form.iconUrl')}
        hint={t('form.iconUrlHint')}
        field="iconUrl"
        value={values.iconUrl}
        onChange={(value) => set('iconUrl', value)}
        fieldProps={fieldProps}
        problem={problemFor('iconUrl')}
      />

      <div className="field">
        <label htmlFor={idOf('longDescription')}>{t('form.longDescription')}</label>
        <textarea
          {...fieldProps('longDescription', `${idOf('longDescription')}-hint`)}
          rows={6}
          value={values.longDescription}
          onChange={(event) => set('longDescription', event.target.value)}
        />
        <p id={`${idOf('longDescription')}-hint`} className={longCount > LONG_DESCRIPTION_MAX_CHARS ? 'hint over-limit' : 'hint'} aria-live="polite">
          {t('form.longDescriptionHint')} {t('form.counter', { count: longCount, max: LONG_DESCRIPTION_MAX_CHARS })}
        </p>
        {problemFor('longDescription')}
      </div>

      <div className="field">
        <label htmlFor={idOf('screenshotUrls')}>{t('form.screenshotUrls')}</label>
        <textarea
          {...fieldProps('screenshotUrls', `${idOf('screenshotUrls')}-hint`)}
          rows={3}
          inputMode="url"
          placeholder="https://"
          spellCheck={false}
          value={values.screenshotUrls}
          onChange={(event) => set('screenshotUrls', event.target.value)}
        />
        <p id={`${idOf('screenshotUrls')}-hint`} className="hint">
          {t('form.screenshotUrlsHint', { max: SCREENSHOTS_MAX })}
        </p>
        {problemFor('screenshotUrls')}
      </div>

      <UrlField
        label={t('form.supportUrl')}
        hint={t('form.supportUrlHint')}
        field="supportUrl"
        value={values.supportUrl}
        onChange={(value) => set('supportUrl', value)}
        fieldProps={fieldProps}
        problem={problemFor('supportUrl')}
      />
      <UrlField
        label={t('form.privacyPolicyUrl')}
        hint={t('form.privacyPolicyUrlHint')}
        field="privacyPolicyUrl"
        value={values.privacyPolicyUrl}
        onChange={(value) => set('privacyPolicyUrl', value)}
        fieldProps={fieldProps}
        problem={problemFor('privacyPolicyUrl')}
      />

      <div className="field">
        <label htmlFor={idOf('category')}>{t('form.category')}</label>
        <select {...fieldProps('category')} value={values.category} onChange={(event) => set('category', event.target.value)}>
          <option value="">{t('form.chooseCategory')}</option>
          {categories.data?.categories.map((category) => (
            <option key={category.id} value={category.id}>
              {codeLabel(t, 'category', category.id, category.label)}
            </option>
          ))}
        </select>
        {problemFor('category')}
      </div>

      <fieldset className="field" aria-describedby={problems.pricing ? `${idOf('pricing')}-problem` : undefined}>
        <legend>{t('form.pricing')}</legend>
        <label className="inline">
          <input type="radio" name={`${formId}-pricing`} value="FREE" checked={values.pricing === 'FREE'} onChange={() => set('pricing', 'FREE')} /> {t('form.free')}
        </label>
        <label className="inline">
          <input type="radio" name={`${formId}-pricing`} value="PAID" checked={values.pricing === 'PAID'} onChange={() => set('pricing', 'PAID')} /> {t('form.paid')}
        </label>
        {problemFor('pricing')}
      </fieldset>

      {values.pricing === 'PAID' && (
        <div className="field">
          <label htmlFor={idOf('pricePoints')}>{t('form.price')}</label>
          <input
            {...fieldProps('pricePoints')}
            type="number"
            inputMode="numeric"
            min={1}
            step={1}
            value={values.pricePoints}
            onChange={(event) => set('pricePoints', event.target.value)}
          />
          {problemFor('pricePoints')}
        </div>
      )}

      <UrlField
        label={t('form.webhookUrl')}
        hint={t('form.webhookUrlHint')}
        field="webhookUrl"
        value={values.webhookUrl}
        onChange={(value) => set('webhookUrl', value)}
        fieldProps={fieldProps}
        problem={problemFor('webhookUrl')}
        optional
      />

      <EventsField
        firstId={idOf('webhookEvents')}
        selected={values.webhookEvents}
        onChange={(events) => set('webhookEvents', events)}
        // Said as soon as the last box is unticked, not only on submit; one message either way.
        problem={problems.webhookEvents ?? (values.webhookEvents.length === 0 ? t('form.eventsNone') : undefined)}
      />

      <button type="submit" disabled={sending}>
        {sending ? busyLabel : submitLabel}
      </button>
      {formProblem && <ErrorMessage message={formProblem} />}
    </form>
  );
}

interface UrlFieldProps {
  label: string;
  hint: string;
  field: AppField;
  value: string;
  onChange: (value: string) => void;
  fieldProps: (field: AppField, hintId?: string) => Record<string, unknown>;
  problem: ReactNode;
  optional?: boolean;
}

function UrlField({ label, hint, field, value, onChange, fieldProps, problem, optional = false }: UrlFieldProps) {
  const t = useT();
  const props = fieldProps(field, undefined);
  const hintId = `${String(props.id)}-hint`;
  // One message per problem: once a submit's message stands under the field, the live hint steps back.
  const live = problem ? null : httpsProblem(value);
  // Webhooks may use plain http in development, where the server allows private URLs; only hint there.
  const liveText = live === 'not-absolute' ? t('form.notAbsolute') : live === 'not-https' ? t(optional ? 'form.webhookNotHttps' : 'form.notHttps') : null;
  return (
    <div className="field">
      <label htmlFor={String(props.id)}>{label}</label>
      <input {...fieldProps(field, hintId)} type="url" inputMode="url" placeholder="https://" value={value} onChange={(event) => onChange(event.target.value)} />
      <p id={hintId} className={liveText ? 'hint warning' : 'hint'} aria-live="polite">
        {liveText ?? hint}
      </p>
      {problem}
    </div>
  );
}

interface EventsFieldProps {
  firstId: string;
  selected: WebhookEventType[];
  onChange: (events: WebhookEventType[]) => void;
  problem: string | undefined;
}

function EventsField({ firstId, selected, onChange, problem }: EventsFieldProps) {
  const t = useT();
  const hintId = `${firstId}-hint`;
  const problemId = `${firstId}-problem`;
  const toggle = (event: WebhookEventType, on: boolean) => onChange(on ? [...selected, event] : selected.filter((e) => e !== event));
  return (
    <fieldset className="field" aria-describedby={[hintId, problem ? problemId : undefined].filter(Boolean).join(' ')} aria-invalid={problem ? true : undefined}>
      <legend>{t('form.events')}</legend>
      <p id={hintId} className="hint">
        {t('form.eventsHint')}
      </p>
      {SUBSCRIBABLE_EVENTS.map((event, index) => (
        <label key={event} className="inline">
          <input type="checkbox" id={index === 0 ? firstId : undefined} checked={selected.includes(event)} onChange={(e) => toggle(event, e.target.checked)} />{' '}
          {eventWireName(event)}
        </label>
      ))}
      {problem && <FieldProblem id={problemId}>{problem}</FieldProblem>}
    </fieldset>
  );
}

function FieldProblem({ id, children }: { id: string; children: ReactNode }) {
  return (
    <p id={id} className="field-problem" role="alert">
      {children}
    </p>
  );
}
