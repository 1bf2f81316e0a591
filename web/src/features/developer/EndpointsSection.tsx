import { useMutation, useQuery } from '@apollo/client/react';
import { useId, useRef, useState, type FormEvent } from 'react';
import { useFragment as readFragment } from '../../gql';
import type { WebhookEndpointFieldsFragment, WebhookEndpointHealthFieldsFragment, WebhookEventType } from '../../gql/graphql';
import { useLocale, useT } from '../../i18n/i18n';
import { chartFormat } from '../insights/chart-format';
import { AlertIcon } from '../../ui/icons';
import { ErrorMessage } from '../../ui/ErrorMessage';
import { serverProblem, useProblemText } from '../../ui/graphql-errors';
import { StatusMessage } from '../../ui/StatusMessage';
import { EndpointStateBadge } from './EndpointStateBadge';
import { eventWireName, SUBSCRIBABLE_EVENTS } from './app-rules';
import {
  AppWebhookEndpointsHealthQuery,
  CreateWebhookEndpointMutation,
  DeleteWebhookEndpointMutation,
  PauseWebhookEndpointMutation,
  ResumeWebhookEndpointMutation,
  UpdateWebhookEndpointMutation,
  WebhookEndpointFields,
  WebhookEndpointHealthFields,
} from './webhook-endpoints';

type Endpoint = WebhookEndpointFieldsFragment;
type Health = WebhookEndpointHealthFieldsFragment;

/** An app's webhook destinations on its page: each one's state, pace and last day at a glance, and what can be done to it. */
export function EndpointsSection({ appId, onChange }: { appId: string; onChange?: () => void }) {
  const t = useT();
  const headingId = useId();
  const { data, error, refetch } = useQuery(AppWebhookEndpointsHealthQuery, { variables: { appId }, fetchPolicy: 'cache-and-network' });
  const endpoints = (data?.app?.webhookEndpoints ?? []).map((each) => ({
    endpoint: readFragment(WebhookEndpointFields, each) as Endpoint,
    health: each.health ? (readFragment(WebhookEndpointHealthFields, each.health) as Health) : null,
  }));
  const [adding, setAdding] = useState(false);
  const [news, setNews] = useState<string | null>(null);
  const addButton = useRef<HTMLButtonElement>(null);

  // The app's Webhook URL is its first endpoint: a change here may change what the page's facts say.
  const changed = async (message: string) => {
    setNews(message);
    await refetch();
    onChange?.();
  };

  return (
    <section className="card endpoints" aria-labelledby={headingId}>
      <h2 id={headingId}>{t('endpoints.heading')}</h2>
      <p className="hint">{t('endpoints.lede')}</p>
      {error && !data ? (
        // A retry that fails shows as the query's error again.
        <ErrorMessage message={serverProblem(error).message} onRetry={() => void refetch()} />
      ) : endpoints.length === 0 && data ? (
        <p>{t('endpoints.none')}</p>
      ) : (
        <ul className="endpoint-list">
          {endpoints.map(({ endpoint, health }) => (
            <EndpointItem key={endpoint.id} endpoint={endpoint} health={health} onChanged={changed} />
          ))}
        </ul>
      )}
      <StatusMessage message={news} />
      {adding ? (
        <EndpointForm
          appId={appId}
          onDone={async (saved) => {
            setAdding(false);
            if (saved) await changed(t('endpoints.added', { url: saved }));
            addButton.current?.focus();
          }}
        />
      ) : (
        <div className="actions">
          <button
            ref={addButton}
            type="button"
            onClick={() => {
              setNews(null);
              setAdding(true);
            }}
          >
            {t('endpoints.add')}
          </button>
        </div>
      )}
    </section>
  );
}

function EndpointItem({ endpoint, health, onChanged }: { endpoint: Endpoint; health: Health | null; onChanged: (message: string) => Promise<void> }) {
  const t = useT();
  const format = chartFormat(useLocale());
  const problemText = useProblemText();
  const [editing, setEditing] = useState(false);
  const [confirmingDelete, setConfirmingDelete] = useState(false);
  const [pause, pauseState] = useMutation(PauseWebhookEndpointMutation);
  const [resume, resumeState] = useMutation(ResumeWebhookEndpointMutation);
  const problem = pauseState.error ?? resumeState.error;
  const busy = pauseState.loading || resumeState.loading;
  const labelId = useId();

  return (
    <li className="endpoint" data-testid="endpoint" aria-labelledby={labelId}>
      <div className="endpoint-head">
        <span id={labelId} className="mono endpoint-url">
          {endpoint.url}
        </span>
        <EndpointStateBadge state={endpoint.state} />
      </div>
      {endpoint.description && <p className="endpoint-description">{endpoint.description}</p>}
      <dl className="facts">
        <dt>{t('form.events')}</dt>
        <dd>{endpoint.events.map(eventWireName).join(', ')}</dd>
        <dt>{t('endpoints.pace')}</dt>
        <dd>{endpoint.rateLimitPerSecond ? t('endpoints.paceLimit', { count: endpoint.rateLimitPerSecond }) : t('endpoints.paceNone')}</dd>
        <dt>{t('endpoints.health')}</dt>
        <dd>
          <EndpointHealth endpoint={endpoint} health={health} />
        </dd>
        {health?.failingSince && (
          <>
            <dt>{t('endpoints.failingSince')}</dt>
            <dd data-testid="endpoint-failing">
              {t('endpoints.failingSinceValue', { time: format.dateTime(health.failingSince), error: health.lastError ?? t('endpoints.unknownError') })}
            </dd>
          </>
        )}
        {health && health.openDeliveries + health.heldDeliveries > 0 && (
          <>
            <dt>{t('endpoints.waiting')}</dt>
            <dd data-testid="endpoint-waiting">
              {[
                health.openDeliveries > 0 && t('endpoints.waitingOpen', { count: format.count(health.openDeliveries) }),
                health.heldDeliveries > 0 && t('endpoints.waitingHeld', { count: format.count(health.heldDeliveries) }),
              ]
                .filter(Boolean)
                .join(', ')}
            </dd>
          </>
        )}
      </dl>
      {endpoint.state === 'DISABLED' && <p className="endpoint-disabled-text">{t('endpoints.disabledText')}</p>}
      {editing ? (
        <EndpointForm
          endpoint={endpoint}
          appId={endpoint.appId}
          onDone={async (saved) => {
            setEditing(false);
            if (saved) await onChanged(t('endpoints.saved', { url: saved }));
          }}
        />
      ) : confirmingDelete ? (
        <DeleteConfirmation
          endpoint={endpoint}
          onDone={async (deleted) => {
            setConfirmingDelete(false);
            if (deleted) await onChanged(t('endpoints.deleted', { url: endpoint.url }));
          }}
        />
      ) : (
        <div className="actions">
          <button type="button" className="secondary" onClick={() => setEditing(true)}>
            {t('endpoints.edit')}
            <Named url={endpoint.url} />
          </button>
          {endpoint.state === 'ENABLED' ? (
            <button
              type="button"
              className="secondary"
              disabled={busy}
              onClick={() =>
                // Its failure shows from pauseState (problem, above).
                void pause({ variables: { id: endpoint.id } })
                  .then(() => onChanged(t('endpoints.paused', { url: endpoint.url })))
                  .catch(() => undefined)
              }
            >
              {t('endpoints.pause')}
              <Named url={endpoint.url} />
            </button>
          ) : (
            <button
              type="button"
              disabled={busy}
              onClick={() =>
                // Its failure shows from resumeState (problem, above).
                void resume({ variables: { id: endpoint.id } })
                  .then(() => onChanged(t('endpoints.resumed', { url: endpoint.url })))
                  .catch(() => undefined)
              }
            >
              {t('endpoints.resume')}
              <Named url={endpoint.url} />
            </button>
          )}
          <button type="button" className="secondary danger" onClick={() => setConfirmingDelete(true)}>
            {t('endpoints.delete')}
            <Named url={endpoint.url} />
          </button>
        </div>
      )}
      {problem && <ErrorMessage message={problemText(serverProblem(problem))} />}
    </li>
  );
}

/** Each endpoint has the same buttons: the hidden URL tells a screen reader's list of buttons which endpoint each acts on. */
function Named({ url }: { url: string }) {
  return <span className="visually-hidden"> {url}</span>;
}

/** Its attempts over the last 24 hours as the server counts them: the share that succeeded, and a Failing badge while a run of failures lasts. */
function EndpointHealth({ endpoint, health }: { endpoint: Endpoint; health: Health | null }) {
  const t = useT();
  const format = chartFormat(useLocale());
  if (!health) return <span>{t('loading')}</span>;
  const attempts = health.attemptsSucceeded + health.attemptsFailed;
  const failing = endpoint.state === 'ENABLED' && health.failingSince !== null && health.failedDeliveries > 0;
  return (
    <span className="webhook-health-cell" data-testid="endpoint-health">
      {failing && (
        <span className="badge webhook-failing">
          <AlertIcon /> {t('myApps.webhookFailing')}
        </span>
      )}{' '}
      <span>
        {attempts === 0 || health.successRate === null
          ? t('endpoints.healthIdle')
          : t('endpoints.healthRate', { rate: format.percent(health.successRate), succeeded: format.count(health.attemptsSucceeded), ended: format.count(attempts) })}
      </span>
    </span>
  );
}

/** What a delete gives up: the endpoint's deliveries not yet settled, from its health (held ones are FAILED already and stay so). */
function DeleteConfirmation({ endpoint, onDone }: { endpoint: Endpoint; onDone: (deleted: boolean) => Promise<void> }) {
  const t = useT();
  const problemText = useProblemText();
  const format = chartFormat(useLocale());
  // Asked afresh when the question is put: what gives up is what is open now, not when the page loaded.
  const { data } = useQuery(AppWebhookEndpointsHealthQuery, { variables: { appId: endpoint.appId }, fetchPolicy: 'network-only' });
  const [remove, removeState] = useMutation(DeleteWebhookEndpointMutation);
  const fresh = data?.app?.webhookEndpoints.find((each) => readFragment(WebhookEndpointFields, each).id === endpoint.id)?.health;
  const open = data ? (fresh ? readFragment(WebhookEndpointHealthFields, fresh).openDeliveries : 0) : null;
  // The server counts up to 10,000; past that "10,000+" is all a confirmation needs to say.
  const more = open !== null && open >= 10_000 ? '+' : '';
  const textId = useId();
  const cancel = useRef<HTMLButtonElement>(null);
  return (
    <div className="endpoint-confirm" role="group" aria-labelledby={textId}>
      <p id={textId}>
        <strong>{t('endpoints.deleteQuestion', { url: endpoint.url })}</strong>{' '}
        {open === null ? t('loading') : open === 1 && !more ? t('endpoints.deleteConsequenceOne') : t('endpoints.deleteConsequence', { count: `${format.count(open)}${more}` })}
      </p>
      <div className="actions">
        <button
          type="button"
          className="danger"
          disabled={open === null || removeState.loading}
          onClick={() =>
            // Its failure shows from removeState below.
            void remove({ variables: { id: endpoint.id } })
              .then(() => onDone(true))
              .catch(() => undefined)
          }
        >
          {t('endpoints.deleteConfirm')}
        </button>
        {/* Never rejects: nothing was deleted, so nothing is read again. */}
        <button ref={cancel} type="button" className="secondary" onClick={() => void onDone(false)}>
          {t('endpoints.keep')}
        </button>
      </div>
      {removeState.error && <ErrorMessage message={problemText(serverProblem(removeState.error))} />}
    </div>
  );
}

type EndpointField = 'url' | 'description' | 'events' | 'rateLimitPerSecond';
const FIELDS: EndpointField[] = ['url', 'description', 'events', 'rateLimitPerSecond'];

/** Which field a refusal is about: the server names it in `field`, or (for the input's own checks) in its message. */
function fieldOf(problem: { field?: string; message: string }): EndpointField | undefined {
  const named = problem.field?.replace(/^input\./, '');
  if (named && FIELDS.includes(named as EndpointField)) return named as EndpointField;
  return FIELDS.find((field) => problem.message.includes(field));
}

/** Add (no `endpoint`) or edit; `onDone` gets the saved URL, or null when cancelled. */
function EndpointForm({ appId, endpoint, onDone }: { appId: string; endpoint?: Endpoint; onDone: (savedUrl: string | null) => Promise<void> }) {
  const t = useT();
  const problemText = useProblemText();
  const formId = useId();
  const idOf = (field: EndpointField) => `${formId}-${field}`;
  const [url, setUrl] = useState(endpoint?.url ?? '');
  const [description, setDescription] = useState(endpoint?.description ?? '');
  // Every event by default: a new endpoint given no events receives all of them, those added later too.
  const [events, setEvents] = useState<WebhookEventType[]>(endpoint ? [...endpoint.events] : [...SUBSCRIBABLE_EVENTS]);
  const [rate, setRate] = useState(endpoint?.rateLimitPerSecond ? String(endpoint.rateLimitPerSecond) : '');
  const [problems, setProblems] = useState<Partial<Record<EndpointField, string>>>({});
  const [formProblem, setFormProblem] = useState<string | null>(null);
  const [create, createState] = useMutation(CreateWebhookEndpointMutation);
  const [update, updateState] = useMutation(UpdateWebhookEndpointMutation);
  const sending = createState.loading || updateState.loading;
  const form = useRef<HTMLFormElement>(null);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setProblems({});
    setFormProblem(null);
    const allEvents = SUBSCRIBABLE_EVENTS.every((e) => events.includes(e));
    const input = {
      url: url.trim(),
      description: description.trim() || null,
      // All of them is said by giving none, so the events Plaza adds later reach this endpoint too.
      events: allEvents ? null : SUBSCRIBABLE_EVENTS.filter((e) => events.includes(e)),
      // Sent as typed: the server's range check names the field; a non-number is sent as 0 to be refused there the same way.
      rateLimitPerSecond: rate.trim() === '' ? null : Number.isInteger(Number(rate)) ? Number(rate) : 0,
    };
    try {
      if (endpoint) await update({ variables: { id: endpoint.id, input } });
      else await create({ variables: { appId, input } });
      await onDone(input.url);
    } catch (err) {
      const problem = serverProblem(err);
      const field = fieldOf(problem);
      const message = problemText(problem);
      if (field) {
        setProblems({ [field]: message });
        (form.current?.ownerDocument.getElementById(idOf(field)) as HTMLElement | null)?.focus();
      } else setFormProblem(message);
    }
  }

  const fieldProps = (field: EndpointField, hintId?: string) => ({
    id: idOf(field),
    'aria-invalid': problems[field] ? true : undefined,
    'aria-describedby': [hintId, problems[field] ? `${idOf(field)}-problem` : undefined].filter(Boolean).join(' ') || undefined,
  });
  const problemFor = (field: EndpointField) =>
    problems[field] && (
      <p id={`${idOf(field)}-problem`} className="field-problem" role="alert">
        {problems[field]}
      </p>
    );

  return (
    <form
      ref={form}
      className="app-form endpoint-form"
      // submit() shows its own failure in the form.
      onSubmit={(e) => void submit(e)}
      noValidate
      aria-busy={sending}
      aria-label={endpoint ? t('endpoints.editLabel', { url: endpoint.url }) : t('endpoints.addLabel')}
    >
      <div className="field">
        <label htmlFor={idOf('url')}>{t('endpoints.url')}</label>
        <input {...fieldProps('url')} type="url" inputMode="url" placeholder="https://" value={url} onChange={(e) => setUrl(e.target.value)} />
        {problemFor('url')}
      </div>
      <div className="field">
        <label htmlFor={idOf('description')}>{t('endpoints.description')}</label>
        <input {...fieldProps('description', `${idOf('description')}-hint`)} value={description} onChange={(e) => setDescription(e.target.value)} />
        <p id={`${idOf('description')}-hint`} className="hint">
          {t('endpoints.descriptionHint')}
        </p>
        {problemFor('description')}
      </div>
      <fieldset className="field" aria-describedby={problems.events ? `${idOf('events')}-problem` : undefined} aria-invalid={problems.events ? true : undefined}>
        <legend>{t('form.events')}</legend>
        {SUBSCRIBABLE_EVENTS.map((option, index) => (
          <label key={option} className="inline">
            <input
              type="checkbox"
              id={index === 0 ? idOf('events') : undefined}
              checked={events.includes(option)}
              onChange={(e) => setEvents((current) => (e.target.checked ? [...current, option] : current.filter((x) => x !== option)))}
            />{' '}
            {eventWireName(option)}
          </label>
        ))}
        {problemFor('events')}
      </fieldset>
      <div className="field">
        <label htmlFor={idOf('rateLimitPerSecond')}>{t('endpoints.rate')}</label>
        <input
          {...fieldProps('rateLimitPerSecond', `${idOf('rateLimitPerSecond')}-hint`)}
          type="number"
          inputMode="numeric"
          min={1}
          step={1}
          value={rate}
          onChange={(e) => setRate(e.target.value)}
        />
        <p id={`${idOf('rateLimitPerSecond')}-hint`} className="hint">
          {t('endpoints.rateHint')}
        </p>
        {problemFor('rateLimitPerSecond')}
      </div>
      {formProblem && <ErrorMessage message={formProblem} />}
      <div className="actions">
        <button type="submit" disabled={sending}>
          {t(sending ? 'dev.saving' : endpoint ? 'endpoints.save' : 'endpoints.addSubmit')}
        </button>
        {/* Never rejects: nothing was saved, so nothing is read again. */}
        <button type="button" className="secondary" onClick={() => void onDone(null)}>
          {t('endpoints.cancel')}
        </button>
      </div>
    </form>
  );
}
