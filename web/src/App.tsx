import { useQuery } from '@apollo/client/react';
import { useState } from 'react';
import { MyAppList } from './features/developer/MyAppList';
import { AppLauncher } from './features/launcher/AppLauncher';
import type { SessionUser } from './features/session/auth-api';
import { CurrentViewerQuery } from './features/session/current-viewer';
import { SessionPanel } from './features/session/SessionPanel';
import { CategoryList } from './features/store/CategoryList';
import { routeFor } from './routes';
import { ErrorMessage } from './ui/ErrorMessage';

export function App() {
  const route = routeFor(window.location);
  if (route.kind === 'launcher') return <AppLauncher appId={route.appId} locale={route.locale} theme={route.theme} />;
  return <HomePage />;
}

function HomePage() {
  const viewer = useQuery(CurrentViewerQuery, { fetchPolicy: 'network-only' });
  // Judged by data rather than `loading`, so a later refetch does not tear down the page it feeds.
  const checkingSession = viewer.data === undefined && viewer.error === undefined;

  return (
    <div className="page">
      <header>
        <h1>Plaza</h1>
        <p className="lede">
          An app marketplace: developers submit apps, reviewers approve them within a day, and people install them from the store.
        </p>
      </header>
      <main>
        {checkingSession ? (
          <p aria-live="polite">Checking whether you are signed in…</p>
        ) : (
          <>
            {viewer.error && <ErrorMessage message={`Could not check your session: ${viewer.error.message}`} />}
            <Dashboard initialUser={viewer.data?.me ?? null} />
          </>
        )}
      </main>
    </div>
  );
}

function Dashboard({ initialUser }: { initialUser: SessionUser | null }) {
  const [user, setUser] = useState(initialUser);

  return (
    <>
      <SessionPanel initialUser={initialUser} onSessionChange={setUser} />
      <CategoryList />
      {user ? (
        <MyAppList key={user.id} />
      ) : (
        <section className="card" aria-labelledby="my-apps-heading">
          <h2 id="my-apps-heading">Your apps</h2>
          <p>Sign in to see the apps you have submitted.</p>
        </section>
      )}
    </>
  );
}
