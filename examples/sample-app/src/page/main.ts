import { connectToPlatform, PlatformConnectionError, type PlatformSession } from '@plaza/app-sdk/browser';
import { stringsFor, type PageStrings } from './strings.js';

/** How often the page asks its backend whether a purchase or refund webhook changed the plan. */
const PLAN_RECHECK_MS = 1000;

interface SessionAnswer {
  userId: string;
  premium: boolean;
  /** This app's own session, for the page's later calls; Plaza's token is not reused. */
  appSession: string;
}

const byId = (id: string): HTMLElement => {
  const element = document.getElementById(id);
  if (!element) throw new Error(`index.html has no #${id}`);
  return element;
};

const platformOrigin = document.querySelector<HTMLMetaElement>('meta[name="plaza-platform-origin"]')?.content ?? '';
const status = byId('status');

function showStatus(text: string): void {
  status.textContent = text;
  status.hidden = false;
}

function showPlan(strings: PageStrings, premium: boolean): void {
  const plan = byId('plan');
  if (plan.dataset.premium === String(premium)) return; // unchanged: keep screen readers quiet
  plan.dataset.premium = String(premium);
  const label = document.createElement('span');
  label.className = premium ? 'badge' : 'free-plan';
  label.textContent = premium ? strings.premium : strings.freePlan;
  plan.replaceChildren(label);
}

function showSession(strings: PageStrings, session: PlatformSession, userId: string): void {
  const locale = session.locale === 'vi' ? 'vi' : 'en';
  const theme = session.theme === 'dark' ? 'dark' : 'light';
  document.documentElement.lang = locale;
  document.documentElement.dataset.theme = theme;
  document.title = strings.title;
  byId('title').textContent = strings.title;
  byId('opened-by').textContent = strings.openedBy(userId);
  byId('locale-label').textContent = strings.language;
  byId('locale').textContent = `${strings.localeName} (${locale})`;
  byId('theme-label').textContent = strings.theme;
  byId('theme').textContent = `${strings.themeNames[theme]} (${theme})`;
  status.hidden = true;
  byId('session').hidden = false;
}

/** The token proves nothing until the backend has verified it; only the backend's answer is shown. */
async function verifyWithBackend(token: string): Promise<SessionAnswer | 'refused' | 'unreachable'> {
  try {
    const response = await fetch('/api/session', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token }) });
    if (response.status === 401 || response.status === 400) return 'refused';
    if (!response.ok) return 'unreachable';
    return (await response.json()) as SessionAnswer;
  } catch {
    return 'unreachable';
  }
}

async function keepPlanCurrent(strings: PageStrings, appSession: string): Promise<void> {
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, PLAN_RECHECK_MS));
    try {
      const response = await fetch('/api/me', { headers: { authorization: `Bearer ${appSession}` } });
      if (response.status === 401) return showStatus(strings.refused);
      if (response.ok) showPlan(strings, ((await response.json()) as { premium: boolean }).premium);
    } catch {
      // A network blip: keep the last known plan and ask again on the next tick.
    }
  }
}

async function start(): Promise<void> {
  const fallbackStrings = stringsFor(navigator.language.slice(0, 2));
  let session: PlatformSession;
  try {
    session = await connectToPlatform({ allowedOrigins: [platformOrigin] });
  } catch (error) {
    if (!(error instanceof PlatformConnectionError)) throw error;
    return showStatus(error.code === 'NOT_EMBEDDED' ? fallbackStrings.notEmbedded : fallbackStrings.noSession);
  }
  const strings = stringsFor(session.locale);
  showStatus(strings.checking);
  const answer = await verifyWithBackend(session.token);
  if (answer === 'refused' || answer === 'unreachable') return showStatus(strings[answer]);
  showSession(strings, session, answer.userId);
  showPlan(strings, answer.premium);
  await keepPlanCurrent(strings, answer.appSession);
}

// The failures a visitor can meet are shown on the page; anything else is a bug, left to the console.
void start();
