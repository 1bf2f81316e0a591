import { waitFor } from '@testing-library/react';
import type { FakePlazaServer } from './fake-plaza-server';

/**
 * Waits until the page is at rest, for "nothing was sent" checks: `shown` holds (what the user sees once
 * the component is done, e.g. the message shown and the button enabled again, as it is not while
 * sending), a round trip of the test's own has reached the fake server after anything the page sent
 * before it, and the server has answered every request it received. No fixed sleep, so a stray request
 * is seen however slow the machine.
 */
export async function settled(server: FakePlazaServer, shown: () => void): Promise<void> {
  await waitFor(shown);
  await server.roundTrip();
  await waitFor(() => {
    shown();
    if (server.unanswered() > 0) throw new Error(`the fake server still owes ${server.unanswered()} answer(s)`);
  });
}
