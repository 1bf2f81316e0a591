import { ApolloProvider } from '@apollo/client/react';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createApolloClient } from '../../apollo-client';
import { browseFrom, startFakePlazaServer, type FakePlazaServer } from '../../test-support/fake-plaza-server';
import { graphqlResponder, respond, type GraphqlCall, type Wire } from '../../test-support/graphql-responder';
import { settled } from '../../test-support/settled';
import { localeFormat } from '../../i18n/dates';
import { LocaleProvider } from '../../i18n/i18n';

const formatDateTime = localeFormat('en').dateTime;
import type { ClientSecretFieldsFragment } from '../../gql/graphql';
import { ClientSecretPanel } from './ClientSecretPanel';
import { FinishClientSecretRotationMutation, RevealClientSecretMutation, RotateClientSecretMutation } from './client-secret';

const secret = (value: string, previous: { previousValue: string; previousValidUntil: string } | null = null): Wire<ClientSecretFieldsFragment> => ({
  __typename: 'ClientSecret',
  appId: 'app_1',
  value,
  createdAt: '2030-01-01T00:00:00.000Z',
  previousValue: previous?.previousValue ?? null,
  previousValidUntil: previous?.previousValidUntil ?? null,
});
const OVERLAP_ENDS = '2030-01-02T00:00:00.000Z';

let server: FakePlazaServer;
let calls: GraphqlCall[];

beforeAll(async () => {
  server = await startFakePlazaServer();
  browseFrom(server.origin);
});

afterAll(() => server.close());

beforeEach(() => {
  calls = [];
  server.respondWith(
    graphqlResponder(
      [
        respond(RevealClientSecretMutation, { data: { revealClientSecret: secret('whsec_revealed') } }),
        // As the server answers: an overlap unless overlapHours is 0.
        respond(RotateClientSecretMutation, ({ overlapHours }) => ({
          data: { rotateClientSecret: secret('whsec_rotated', overlapHours === 0 ? null : { previousValue: 'whsec_revealed', previousValidUntil: OVERLAP_ENDS }) },
        })),
        respond(FinishClientSecretRotationMutation, { data: { finishClientSecretRotation: secret('whsec_rotated') } }),
      ],
      calls,
    ),
  );
  render(
    <ApolloProvider client={createApolloClient()}>
      <ClientSecretPanel appId="app_1" />
    </ApolloProvider>,
  );
});

afterEach(() => cleanup());

const shownSecret = () => screen.getByTestId('client-secret').textContent;
const button = (name: string) => screen.getByRole('button', { name }) as HTMLButtonElement;

describe('client secret', () => {
  it('stays masked, and unrequested, until the key button is pressed', async () => {
    expect(shownSecret()).toMatch(/^•+$/);
    expect(screen.queryByRole('button', { name: 'Copy' })).toBeNull();
    // At rest as the user sees it: still masked, Reveal ready (it is disabled while a reveal is in flight), every answer in.
    await settled(server, () => {
      expect(shownSecret()).toMatch(/^•+$/);
      expect(button('Reveal client secret').disabled).toBe(false);
    });
    // Every reveal is audited, so merely opening the page must not fetch the secret.
    expect(calls).toEqual([]);

    fireEvent.click(screen.getByRole('button', { name: 'Reveal client secret' }));

    expect(await screen.findByText('whsec_revealed')).toBeTruthy();
    expect(calls).toEqual([{ operationName: 'RevealClientSecret', variables: { appId: 'app_1' } }]);
    expect(screen.getByRole('button', { name: 'Copy' })).toBeTruthy();

    fireEvent.click(screen.getByRole('button', { name: 'Hide' }));
    expect(shownSecret()).toMatch(/^•+$/);
  });

  it('rotates only after confirmation', async () => {
    fireEvent.click(screen.getByRole('button', { name: 'Rotate secret…' }));
    const confirmation = screen.getByRole('group', { name: 'Confirm rotation' });
    expect(confirmation.textContent).toMatch(/old one stops verifying/);

    fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    // Back to the panel as it was, with no rotation under way (Rotate now is disabled while one is).
    await settled(server, () => expect(button('Rotate secret…').disabled).toBe(false));
    expect(calls).toEqual([]);
    expect(screen.queryByRole('group', { name: 'Confirm rotation' })).toBeNull();

    fireEvent.click(screen.getByRole('button', { name: 'Rotate secret…' }));
    fireEvent.click(screen.getByRole('button', { name: 'Rotate now' }));

    expect(await screen.findByText('whsec_rotated')).toBeTruthy();
    expect(calls).toEqual([{ operationName: 'RotateClientSecret', variables: { appId: 'app_1' } }]);
    expect(screen.getByText(/The secret was rotated/).getAttribute('role')).toBe('status');
  });

  it('rotates with a 24-hour overlap by default, shows both secrets and when the old one stops, and finishes the rotation now', async () => {
    fireEvent.click(screen.getByRole('button', { name: 'Rotate secret…' }));
    expect((screen.getByLabelText('Old secret keeps signing for') as HTMLSelectElement).value).toBe('24');
    fireEvent.click(screen.getByRole('button', { name: 'Rotate now' }));

    expect(await screen.findByText('whsec_rotated')).toBeTruthy();
    const previous = screen.getByRole('group', { name: 'Previous secret' });
    expect(screen.getByTestId('previous-client-secret').textContent).toBe('whsec_revealed');
    expect(previous.textContent).toContain(`Still signs until ${formatDateTime(OVERLAP_ENDS)}`);
    expect(screen.getByText(/^The secret was rotated\. Both secrets sign webhooks until/).textContent).toContain(formatDateTime(OVERLAP_ENDS));

    fireEvent.click(screen.getByRole('button', { name: 'Finish rotation now' }));
    expect(await screen.findByText(/Rotation finished: only the new secret signs/)).toBeTruthy();
    expect(screen.queryByRole('group', { name: 'Previous secret' })).toBeNull();
    expect(shownSecret()).toBe('whsec_rotated');
    expect(calls).toEqual([
      { operationName: 'RotateClientSecret', variables: { appId: 'app_1' } },
      { operationName: 'FinishClientSecretRotation', variables: { appId: 'app_1' } },
    ]);
  });

  it('switches at once for a leaked secret: no previous secret is shown', async () => {
    fireEvent.click(screen.getByRole('button', { name: 'Rotate secret…' }));
    fireEvent.change(screen.getByLabelText('Old secret keeps signing for'), { target: { value: '0' } });
    fireEvent.click(screen.getByRole('button', { name: 'Rotate now' }));

    expect(await screen.findByText('whsec_rotated')).toBeTruthy();
    expect(calls).toEqual([{ operationName: 'RotateClientSecret', variables: { appId: 'app_1', overlapHours: 0 } }]);
    expect(screen.queryByRole('group', { name: 'Previous secret' })).toBeNull();
    expect(screen.getByText('The secret was rotated. Update your server with the new one.').getAttribute('role')).toBe('status');
  });

  it.each([
    [
      'en',
      'Rotate secret…',
      'Rotate now',
      /^A rotation is already in progress until (.+): finish it first \(reveal the secret with the key button, then “Finish rotation now”\), or rotate with “No time: switch now” if the secret has leaked\.$/,
    ],
    [
      'vi',
      'Đổi secret…',
      'Đổi ngay',
      /^Đang có một lần đổi secret chưa kết thúc \(tới (.+)\): hãy kết thúc nó trước \(hiện secret bằng nút chìa khóa, rồi “Kết thúc đổi secret ngay”\), hoặc đổi với “Không: chuyển ngay” nếu secret đã bị lộ\.$/,
    ],
  ] as const)('says in plain words (%s) why a rotation during another one’s overlap is refused, and until when', async (locale, rotate, rotateNow, expected) => {
    cleanup();
    server.respondWith(
      graphqlResponder(
        [
          respond(RotateClientSecretMutation, {
            data: null,
            errors: [
              {
                message: `A rotation of this client secret is already in progress until ${OVERLAP_ENDS}: finish it first (finishClientSecretRotation), or rotate with overlapHours: 0 if the secret leaked`,
                extensions: { code: 'CONFLICT', reason: 'ROTATION_IN_PROGRESS', previousValidUntil: OVERLAP_ENDS },
              },
            ],
          }),
        ],
        calls,
      ),
    );
    render(
      <ApolloProvider client={createApolloClient()}>
        <LocaleProvider locale={locale}>
          <ClientSecretPanel appId="app_1" />
        </LocaleProvider>
      </ApolloProvider>,
    );
    fireEvent.click(screen.getByRole('button', { name: rotate }));
    fireEvent.click(screen.getByRole('button', { name: rotateNow }));

    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toMatch(expected);
    expect(expected.exec(alert.textContent ?? '')?.[1]).toBe(localeFormat(locale).dateTime(OVERLAP_ENDS));
    expect(shownSecret()).toMatch(/^•+$/);
  });
});
