// Feature groups (A/B) kept on the user, and the tour's done set saved to the user's onboarding field.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { components } from '../../../src/lib/api/schema';
import { createHarness, type Harness } from '../harness';
import { makeUser, type TestUser } from '../spaces/spaces-fixtures';
import { issuesOf, typedClient } from '../typed-client';

let h: Harness;
let u: TestUser;
let asU: ReturnType<typeof typedClient>;
beforeAll(async () => {
  h = await createHarness();
  u = await makeUser(h, 'tour@example.com');
  asU = typedClient(h, u.token);
});
afterAll(async () => {
  await h?.close();
});

/** GET /api/users/feature_groups, checked for 200. */
async function featureGroups() {
  const r = await asU.GET('/api/users/feature_groups');
  expect(r.response.status).toBe(200);
  return r.data!;
}
/** POST /api/users/feature_group, checked for 200: the account's groups after it. */
async function joinGroup(body: components['schemas']['FeatureGroupRequest']) {
  const r = await asU.POST('/api/users/feature_group', { body });
  expect(r.response.status).toBe(200);
  return r.data!;
}
/** GET /api/users/current, checked for 200. */
async function currentUser() {
  const r = await asU.GET('/api/users/current');
  expect(r.response.status).toBe(200);
  return r.data!;
}

describe('feature groups', () => {
  it('joins a group, replaces its option, lists the groups and shows them on the user', async () => {
    expect(await featureGroups()).toEqual([]);
    expect(await joinGroup({ name: 'demo_project', option: { id: 'control' } })).toEqual([
      { name: 'demo_project', option: { id: 'control' } },
    ]);
    await joinGroup({ name: 'pricing_copy', option: { id: 'b' } });
    await joinGroup({ name: 'demo_project', option: { id: 'demo' } });
    const groups = await featureGroups();
    expect(groups).toEqual([
      { name: 'pricing_copy', option: { id: 'b' } },
      { name: 'demo_project', option: { id: 'demo' } },
    ]);
    expect((await currentUser()).feature_groups).toEqual(groups);
  });

  it('refuses bad input and anonymous callers', async () => {
    const bad = await asU.POST('/api/users/feature_group', { body: { name: 'Demo Project!', option: { id: 'x' } } });
    expect(bad.response.status).toBe(422);
    expect(issuesOf(bad.error)[0].msg).toBe('Invalid group name');
    expect((await typedClient(h).GET('/api/users/feature_groups')).response.status).toBe(401);
  });
});

describe('onboarding field', () => {
  it('the seen steps are saved once each through update user', async () => {
    const r = await asU.PATCH('/api/users/current', {
      body: { onboarding: ['translateMyOwnVideoButton_v1', 'translateMyOwnVideoButton_v1', 'manageTeamspace_v1'] },
    });
    expect(r.response.status).toBe(200);
    expect(r.data!.onboarding).toEqual(['translateMyOwnVideoButton_v1', 'manageTeamspace_v1']);
    expect((await currentUser()).onboarding).toEqual(['translateMyOwnVideoButton_v1', 'manageTeamspace_v1']);
  });
});
