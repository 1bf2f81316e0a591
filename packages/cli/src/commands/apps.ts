import { PlazaApi } from '../api.js';
import { loadSettings } from '../config.js';
import { paintStatus, printJson, printTable } from '../output.js';

interface AppRow {
  id: string;
  name: string;
  status: string;
  webhookUrl: string | null;
  webhookState: string;
  webhookEvents: string[];
}

export async function apps(options: { json?: boolean }): Promise<void> {
  const api = new PlazaApi(await loadSettings());
  const { myApps } = await api.request<{ myApps: AppRow[] }>(`query { myApps { id name status webhookUrl webhookState webhookEvents } }`);
  if (options.json) return myApps.forEach(printJson);
  if (myApps.length === 0) return void process.stdout.write('You have no apps yet: submit one in the portal\n');
  printTable(
    ['ID', 'NAME', 'STATUS', 'WEBHOOK', 'EVENTS', 'URL'],
    myApps.map((a) => [a.id, a.name, a.status, a.webhookUrl ? a.webhookState : 'none', a.webhookEvents.map(eventName).join(','), a.webhookUrl ?? '-']),
    (column, cell, padded) => (column === 2 || column === 3 ? paintStatus(cell, padded) : padded),
  );
}

/** APP_PURCHASED -> app.purchased, the name on the wire. */
export const eventName = (value: string) => value.toLowerCase().replace('_', '.');
