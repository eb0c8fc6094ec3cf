// Feature groups (A/B) kept on the user, and the tour's done set saved to the user's onboarding field.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../harness';
import { call, makeUser, ok, type TestUser } from '../spaces/spaces-fixtures';

let h: Harness;
let u: TestUser;
beforeAll(async () => {
  h = await createHarness();
  u = await makeUser(h, 'tour@example.com');
});
afterAll(async () => {
  await h?.close();
});

describe('feature groups', () => {
  it('joins a group, replaces its option, lists the groups and shows them on the user', async () => {
    expect(await ok(h, u, 'GET', '/api/users/feature_groups')).toEqual([]);
    expect(await ok(h, u, 'POST', '/api/users/feature_group', { name: 'demo_project', option: { id: 'control' } })).toEqual([
      { name: 'demo_project', option: { id: 'control' } },
    ]);
    await ok(h, u, 'POST', '/api/users/feature_group', { name: 'pricing_copy', option: { id: 'b' } });
    await ok(h, u, 'POST', '/api/users/feature_group', { name: 'demo_project', option: { id: 'demo' } });
    const groups = await ok(h, u, 'GET', '/api/users/feature_groups');
    expect(groups).toEqual([
      { name: 'pricing_copy', option: { id: 'b' } },
      { name: 'demo_project', option: { id: 'demo' } },
    ]);
    expect((await ok(h, u, 'GET', '/api/users/current')).feature_groups).toEqual(groups);
  });

  it('refuses bad input and anonymous callers', async () => {
    const bad = await call(h, u, 'POST', '/api/users/feature_group', { name: 'Demo Project!', option: { id: 'x' } });
    expect(bad.status).toBe(422);
    expect(bad.json.detail[0].msg).toBe('Invalid group name');
    expect((await call(h, null, 'GET', '/api/users/feature_groups')).status).toBe(401);
  });
});

describe('onboarding field', () => {
  it('the seen steps are saved once each through update user', async () => {
    const r = await ok(h, u, 'PATCH', '/api/users/current', { onboarding: ['translateMyOwnVideoButton_v1', 'translateMyOwnVideoButton_v1', 'manageTeamspace_v1'] });
    expect(r.onboarding).toEqual(['translateMyOwnVideoButton_v1', 'manageTeamspace_v1']);
    expect((await ok(h, u, 'GET', '/api/users/current')).onboarding).toEqual(['translateMyOwnVideoButton_v1', 'manageTeamspace_v1']);
  });
});
