import { CombinedGraphQLErrors } from '@apollo/client/errors';
import { useMutation } from '@apollo/client/react';
import { useId, useState } from 'react';
import { useFragment as readFragment, type FragmentType } from '../../gql';
import { useFormat, useT } from '../../i18n/i18n';
import { CopyButton } from '../../ui/CopyButton';
import { ErrorMessage } from '../../ui/ErrorMessage';
import { serverProblem } from '../../ui/graphql-errors';
import { KeyIcon } from '../../ui/icons';
import { ClientSecretFields, FinishClientSecretRotationMutation, RevealClientSecretMutation, RotateClientSecretMutation } from './client-secret';

const MASK = '•'.repeat(24);
/** The overlaps offered, in hours; 24 is the server's default, 0 switches at once for a leaked secret. */
const OVERLAPS = [24, 1, 72, 168, 0] as const;
const DEFAULT_OVERLAP = 24;

interface ShownSecret {
  value: string;
  previousValue: string | null;
  previousValidUntil: string | null;
}

/**
 * When a rotation was refused because another one's overlap runs (ROTATION_IN_PROGRESS), the overlap's
 * end; the server's message names its GraphQL arguments, so the panel says it in the portal's words.
 */
function rotationInProgressUntil(error: unknown): string | null {
  const extensions = CombinedGraphQLErrors.is(error) ? error.errors[0]?.extensions : undefined;
  return extensions?.reason === 'ROTATION_IN_PROGRESS' && typeof extensions.previousValidUntil === 'string' ? extensions.previousValidUntil : null;
}

/** Each reveal is audited by the server, so the secret is fetched only when asked for, never on page load. */
export function ClientSecretPanel({ appId }: { appId: string }) {
  const t = useT();
  const format = useFormat();
  const headingId = useId();
  const overlapId = useId();
  const [secret, setSecret] = useState<ShownSecret | null>(null);
  const [confirmingRotate, setConfirmingRotate] = useState(false);
  const [overlapHours, setOverlapHours] = useState<number>(DEFAULT_OVERLAP);
  const [problem, setProblem] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [reveal, revealing] = useMutation(RevealClientSecretMutation);
  const [rotate, rotating] = useMutation(RotateClientSecretMutation);
  const [finish, finishing] = useMutation(FinishClientSecretRotationMutation);

  async function run(fetchSecret: () => Promise<FragmentType<typeof ClientSecretFields> | undefined>, afterwards: (shown: ShownSecret) => string | null) {
    setProblem(null);
    setNotice(null);
    try {
      const fetched = await fetchSecret();
      if (!fetched) return;
      const fields = readFragment(ClientSecretFields, fetched);
      const shown = { value: fields.value, previousValue: fields.previousValue ?? null, previousValidUntil: fields.previousValidUntil ?? null };
      setSecret(shown);
      setNotice(afterwards(shown));
    } catch (err) {
      const until = rotationInProgressUntil(err);
      setProblem(until ? t('secret.rotationInProgress', { until: format.dateTime(until) }) : serverProblem(err).message);
    }
  }

  function rotateNow() {
    setConfirmingRotate(false);
    // The default overlap is the server's own, so it is not sent.
    const variables = overlapHours === DEFAULT_OVERLAP ? { appId } : { appId, overlapHours };
    // run() shows its own failure beside the secret.
    void run(
      async () => (await rotate({ variables })).data?.rotateClientSecret,
      (shown) => (shown.previousValidUntil ? t('secret.rotatedWithOverlap', { until: format.dateTime(shown.previousValidUntil) }) : t('secret.rotated')),
    );
  }

  return (
    <section className="card" aria-labelledby={headingId}>
      <h2 id={headingId}>{t('secret.heading')}</h2>
      <p className="hint">{t('secret.lede')}</p>
      <div className="secret-row">
        <code data-testid="client-secret">{secret?.value ?? MASK}</code>
        {secret ? (
          <>
            <CopyButton value={secret.value} />
            <button type="button" className="secondary" onClick={() => setSecret(null)}>
              {t('secret.hide')}
            </button>
          </>
        ) : (
          <button
            type="button"
            className="icon-button"
            aria-label={t('secret.reveal')}
            title={t('secret.reveal')}
            onClick={() =>
              // run() shows its own failure beside the secret.
              void run(
                async () => (await reveal({ variables: { appId } })).data?.revealClientSecret,
                () => null,
              )
            }
            disabled={revealing.loading}
          >
            <KeyIcon />
          </button>
        )}
      </div>
      {secret?.previousValue && secret.previousValidUntil && (
        // Apart from Rotate secret… below, so the two buttons do not touch (issue 27, a small finding).
        <div role="group" aria-label={t('secret.previous')} className="secret-previous">
          <h3>{t('secret.previous')}</h3>
          <div className="secret-row">
            <code data-testid="previous-client-secret">{secret.previousValue}</code>
            <CopyButton value={secret.previousValue} />
          </div>
          <p className="hint">{t('secret.previousUntil', { until: format.dateTime(secret.previousValidUntil) })}</p>
          <button
            type="button"
            className="secondary"
            onClick={() =>
              // run() shows its own failure beside the secret.
              void run(
                async () => (await finish({ variables: { appId } })).data?.finishClientSecretRotation,
                () => t('secret.finished'),
              )
            }
            disabled={finishing.loading}
          >
            {t('secret.finish')}
          </button>
        </div>
      )}
      {confirmingRotate ? (
        <div role="group" aria-label={t('secret.confirmLabel')} className="confirm">
          <p>{t('secret.confirmText')}</p>
          <p>
            <label htmlFor={overlapId}>{t('secret.overlap')}</label>{' '}
            <select id={overlapId} value={overlapHours} onChange={(e) => setOverlapHours(Number(e.target.value))}>
              {OVERLAPS.map((hours) => (
                <option key={hours} value={hours}>
                  {t(`secret.overlap.${hours}`)}
                </option>
              ))}
            </select>
          </p>
          <button type="button" className="danger" onClick={rotateNow} disabled={rotating.loading}>
            {t('secret.rotateNow')}
          </button>
          <button type="button" className="secondary" onClick={() => setConfirmingRotate(false)}>
            {t('secret.cancel')}
          </button>
        </div>
      ) : (
        <button type="button" className="secondary" onClick={() => setConfirmingRotate(true)}>
          {t('secret.rotate')}
        </button>
      )}
      {notice && <p role="status">{notice}</p>}
      {problem && <ErrorMessage message={problem} />}
    </section>
  );
}
