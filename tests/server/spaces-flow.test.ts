// Teamspaces through the whole API as people use it: accounts made by sign-up + POST /api/users, plans granted
// by the superuser (PATCH /api/admin/users/{id}), invitations claimed at sign-up, the welcome flag, and
// membership enforced on other domains' space-scoped endpoints through the shared guard.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEXT } from '../../contract/errors';
import { createHarness, type Harness } from './harness';
import { api, signUpAndCreate } from './helpers';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h?.close();
});

describe('invite, sign up, welcome, remove', () => {
  it('runs the whole life of a shared Teamspace', async () => {
    const root = await signUpAndCreate(h, 'root@example.com');
    expect(root.user.is_superuser).toBe(true);
    const owner = await signUpAndCreate(h, 'owner@example.com');
    const stranger = await signUpAndCreate(h, 'stranger@example.com');

    // Trial owner: no second space.
    let r = await api(h, 'POST', '/api/space/create', { token: owner.token, body: { data: { name: 'Studio', color: 'ocean' } } });
    expect(r.status).toBe(403);

    r = await api(h, 'PATCH', `/api/admin/users/${owner.user.id}`, { token: root.token, body: { plan: 'business' } });
    expect(r.status, JSON.stringify(r.json)).toBe(200);

    r = await api(h, 'POST', '/api/space/create', { token: owner.token, body: { data: { name: 'Studio', color: 'ocean' }, emails: ['Friend@Example.com'] } });
    expect(r.status).toBe(201);
    const studio = r.json;
    expect(studio.invites).toEqual([{ id: expect.any(String), email: 'friend@example.com' }]);

    // The invited person signs up: editor at once, welcome modal queued, invite gone.
    const friend = await signUpAndCreate(h, 'friend@example.com');
    expect(friend.user.pending_welcome_spaces).toEqual([studio.id]);
    r = await api(h, 'GET', '/api/space/list', { token: friend.token });
    expect(r.json.map((s: { name: string }) => s.name)).toEqual(['My Teamspace', 'Studio']);
    r = await api(h, 'GET', `/api/space/${studio.id}`, { token: owner.token });
    expect(r.json.invites).toEqual([]);
    expect(r.json.members.map((m: { email: string; role: string }) => `${m.role}:${m.email}`)).toEqual(['owner:owner@example.com', 'editor:friend@example.com']);

    // Shown once: the flag clears.
    r = await api(h, 'PATCH', '/api/users/current', { token: friend.token, body: { welcome_seen_space_id: studio.id } });
    expect(r.status).toBe(200);
    expect(r.json.pending_welcome_spaces).toEqual([]);

    // Space-scoped endpoints of other domains: members in, others out.
    const list = (tok: string) => api(h, 'GET', `/api/project/paginated?space_id=${studio.id}`, { token: tok });
    expect((await list(friend.token)).status).toBe(200);
    r = await list(stranger.token);
    expect(r).toMatchObject({ status: 403, json: { detail: TEXT.noAccess } });
    r = await api(h, 'GET', `/api/settings?space_id=${studio.id}`, { token: stranger.token });
    expect(r).toMatchObject({ status: 403, json: { detail: TEXT.noAccess } });
    r = await api(h, 'GET', `/api/settings?space_id=${studio.id}`, { token: friend.token });
    expect(r.json.kind).toBe('space');

    // An already registered person invited later joins at once and sees the welcome once.
    r = await api(h, 'POST', `/api/space/${studio.id}/invite`, { token: owner.token, body: { emails: ['stranger@example.com'] } });
    expect(r.status).toBe(200);
    r = await api(h, 'GET', '/api/users/current', { token: stranger.token });
    expect(r.json.pending_welcome_spaces).toEqual([studio.id]);
    expect((await list(stranger.token)).status).toBe(200);

    // The owner removes the friend: access ends everywhere.
    r = await api(h, 'DELETE', `/api/space/${studio.id}/members/remove?member_id=${friend.user.id}`, { token: owner.token });
    expect(r.status).toBe(200);
    expect((await list(friend.token)).json).toEqual({ detail: TEXT.noAccess });
    r = await api(h, 'GET', '/api/space/list', { token: friend.token });
    expect(r.json.map((s: { name: string }) => s.name)).toEqual(['My Teamspace']);

    // The stranger leaves by themselves and goes to their default space; the welcome flag goes too.
    r = await api(h, 'GET', `/api/space/${studio.id}/leave`, { token: stranger.token });
    const strangerDefault = (await api(h, 'GET', '/api/space/list', { token: stranger.token })).json[0];
    expect(r.json).toEqual({ default_space_id: strangerDefault.id });
    r = await api(h, 'GET', '/api/users/current', { token: stranger.token });
    expect(r.json.pending_welcome_spaces).toEqual([]);

    // The superuser may look into the space.
    r = await api(h, 'GET', `/api/space/${studio.id}`, { token: root.token });
    expect(r.status).toBe(200);
  });

  it('a downgrade makes deletion possible (owned spaces above the new limit)', async () => {
    const root = await api(h, 'POST', '/api/auth/sign-in', { body: { email: 'root@example.com', password: 'correct-horse-1' } });
    const rootToken = root.json.access_token as string;
    const o = await signUpAndCreate(h, 'down@example.com');
    await api(h, 'PATCH', `/api/admin/users/${o.user.id}`, { token: rootToken, body: { plan: 'creator_pro' } });
    const s = await api(h, 'POST', '/api/space/create', { token: o.token, body: { data: { name: 'Extra', color: 'sand' } } });
    expect(s.status).toBe(201);
    let r = await api(h, 'DELETE', `/api/space/${s.json.id}`, { token: o.token });
    expect(r.status).toBe(409);
    await api(h, 'PATCH', `/api/admin/users/${o.user.id}`, { token: rootToken, body: { plan: 'trial' } });
    r = await api(h, 'DELETE', `/api/space/${s.json.id}`, { token: o.token });
    expect(r.status).toBe(200);
    expect(r.json.default_space_id).toBe((await api(h, 'GET', '/api/space/list', { token: o.token })).json[0].id);
  });
});
