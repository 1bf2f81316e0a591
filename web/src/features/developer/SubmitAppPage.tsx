import { useMutation } from '@apollo/client/react';
import { graphql } from '../../gql';
import { useT } from '../../i18n/i18n';
import { developerAppPath, navigate } from '../../routes';
import { AppForm } from './AppForm';
import { EMPTY_APP_FORM, toAppInput } from './app-rules';
import { announceSubmission } from './submission-notice';

export const SubmitAppMutation = graphql(`
  mutation SubmitApp($input: SubmitAppInput!) {
    submitApp(input: $input) {
      id
      status
      reviewDueAt
    }
  }
`);

export function SubmitAppPage({ onSubmitted = (appId: string) => navigate(developerAppPath(appId)) }: { onSubmitted?: (appId: string) => void }) {
  const t = useT();
  const [submitApp] = useMutation(SubmitAppMutation);
  return (
    <section className="card" aria-labelledby="submit-app-heading">
      <h1 id="submit-app-heading">{t('submit.heading')}</h1>
      <p className="hint">{t('submit.lede')}</p>
      <AppForm
        initialValues={EMPTY_APP_FORM}
        submitLabel={t('submit.button')}
        busyLabel={t('submit.busy')}
        onSubmit={async (values) => {
          const result = await submitApp({ variables: { input: toAppInput(values) } });
          if (!result.data) return;
          const { id, reviewDueAt } = result.data.submitApp;
          announceSubmission({ appId: id, reviewDueAt });
          onSubmitted(id);
        }}
      />
    </section>
  );
}
