import { beforeAll, describe, expect, it } from 'vitest';
import { DECIDE, submitApp } from './helpers/factories.js';
import { REVIEWER_EMAIL, startTestPlaza, type TestPlaza } from './helpers/plaza.js';

const APP_PAGE = 'query($id: ID!) { app(id: $id) { id name developerName } }';

let plaza: TestPlaza;

beforeAll(async () => {
  plaza = await startTestPlaza();
});

describe('App.developerName, as the store names who made an app', () => {
  it('is the part of the sign-in e-mail before the @, without a sub-address tag, and readable signed out', async () => {
    const developer = await plaza.signIn('ana.nguyen+plaza@studio.test');
    const reviewer = await plaza.signIn(REVIEWER_EMAIL);
    const app = await submitApp(developer);
    await reviewer.ok(DECIDE, { input: { appId: app.id, outcome: 'APPROVED' } });

    const { app: listed } = await plaza.anonymous().ok<{ app: { developerName: string } }>(APP_PAGE, { id: app.id });
    expect(listed.developerName).toBe('ana.nguyen');
    // Nothing of the address beyond the name: not the tag, not the domain.
    expect(JSON.stringify(listed)).not.toMatch(/plaza@|studio\.test/);
  });

  it('is not shown to visitors for an app that is not approved', async () => {
    const developer = await plaza.signIn('pending.dev@studio.test');
    const app = await submitApp(developer);
    const { app: hidden } = await plaza.anonymous().ok<{ app: unknown }>(APP_PAGE, { id: app.id });
    expect(hidden).toBeNull();
  });
});

describe('App.developerName on a store page', () => {
  it('names each app of a page after its own developer (loaded together for the page)', async () => {
    const reviewer = await plaza.signIn(REVIEWER_EMAIL);
    const developers = await Promise.all(['binh@studio.test', 'chi+store@studio.test', 'dung@studio.test'].map((email) => plaza.signIn(email)));
    for (const developer of developers) {
      const app = await submitApp(developer, { name: `Page ${developer.user!.email.split('@')[0]}`, category: 'education' });
      await reviewer.ok(DECIDE, { input: { appId: app.id, outcome: 'APPROVED' } });
    }
    const { storeApps } = await plaza
      .anonymous()
      .ok<{ storeApps: { edges: { node: { name: string; developerName: string } }[] } }>(
        '{ storeApps(category: "education", first: 20) { edges { node { name developerName } } } }',
      );
    expect(Object.fromEntries(storeApps.edges.map(({ node }) => [node.name, node.developerName]))).toEqual({ 'Page binh': 'binh', 'Page chi+store': 'chi', 'Page dung': 'dung' });
  });
});
