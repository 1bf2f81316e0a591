import { useMutation } from '@apollo/client/react';
import { useId, useState } from 'react';
import { useT } from '../../i18n/i18n';
import { CopyButton } from '../../ui/CopyButton';
import { ErrorMessage } from '../../ui/ErrorMessage';
import { serverProblem } from '../../ui/graphql-errors';
import { KeyIcon } from '../../ui/icons';
import { RevealClientSecretMutation, RotateClientSecretMutation } from './client-secret';

const MASK = '•'.repeat(24);

/** Each reveal is audited by the server, so the secret is fetched only when asked for, never on page load. */
export function ClientSecretPanel({ appId }: { appId: string }) {
  const t = useT();
  const headingId = useId();
  const [secret, setSecret] = useState<string | null>(null);
  const [confirmingRotate, setConfirmingRotate] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [reveal, revealing] = useMutation(RevealClientSecretMutation);
  const [rotate, rotating] = useMutation(RotateClientSecretMutation);

  async function run(fetchSecret: () => Promise<string | undefined>, afterwards: string | null) {
    setProblem(null);
    setNotice(null);
    try {
      const value = await fetchSecret();
      if (value) setSecret(value);
      setNotice(afterwards);
    } catch (err) {
      setProblem(serverProblem(err).message);
    }
  }

  return (
    <section className="card" aria-labelledby={headingId}>
      <h2 id={headingId}>{t('secret.heading')}</h2>
      <p className="hint">{t('secret.lede')}</p>
      <div className="secret-row">
        <code data-testid="client-secret">{secret ?? MASK}</code>
        {secret ? (
          <>
            <CopyButton value={secret} />
            <button type="button" className="secondary" onClick={() => setSecret(null)}>
              {t('secret.hide')}
            </button>
          </>
        ) : (
          <button type="button" className="icon-button" aria-label={t('secret.reveal')} title={t('secret.reveal')} onClick={() => void run(async () => (await reveal({ variables: { appId } })).data?.revealClientSecret.value, null)} disabled={revealing.loading}>
            <KeyIcon />
          </button>
        )}
      </div>
      {confirmingRotate ? (
        <div role="group" aria-label={t('secret.confirmLabel')} className="confirm">
          <p>{t('secret.confirmText')}</p>
          <button
            type="button"
            className="danger"
            onClick={() => {
              setConfirmingRotate(false);
              void run(async () => (await rotate({ variables: { appId } })).data?.rotateClientSecret.value, t('secret.rotated'));
            }}
            disabled={rotating.loading}
          >
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
