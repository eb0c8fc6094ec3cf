// Teamspaces through the whole API as people use it: accounts made by sign-up + POST /api/users, plans granted
// by the superuser (PATCH /api/admin/users/{id}), invitations claimed at sign-up, the welcome flag, and
// membership enforced on other domains' space-scoped endpoints through the shared guard.
// Requests go through the typed client (tests/server/typed-client.ts): paths, parameters and bodies are checked
// against the OpenAPI document by the compiler.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEXT } from '../../../contract/errors';
import { createHarness, type Harness } from '../harness';
import { signUpAndCreate } from '../helpers';
import { typedClient } from '../typed-client';

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
    const asRoot = typedClient(h, root.token);
    const asOwner = typedClient(h, owner.token);
    const asStranger = typedClient(h, stranger.token);

    // Trial owner: no second space.
    const refused = await asOwner.POST('/api/space/create', { body: { data: { name: 'Studio', color: 'ocean' } } });
    expect(refused.response.status).toBe(403);

    const granted = await asRoot.PATCH('/api/admin/users/{id}', { params: { path: { id: owner.user.id } }, body: { plan: 'business' } });
    expect(granted.response.status, JSON.stringify(granted.error)).toBe(200);

    const created = await asOwner.POST('/api/space/create', { body: { data: { name: 'Studio', color: 'ocean' }, emails: ['Friend@Example.com'] } });
    expect(created.response.status).toBe(201);
    const studio = created.data!;
    expect(studio.invites).toEqual([{ id: expect.any(String), email: 'friend@example.com' }]);
    const inStudio = { params: { path: { id: studio.id } } };

    // The invited person signs up: editor at once, welcome modal queued, invite gone.
    const friend = await signUpAndCreate(h, 'friend@example.com');
    const asFriend = typedClient(h, friend.token);
    expect(friend.user.pending_welcome_spaces).toEqual([studio.id]);
    expect((await asFriend.GET('/api/space/list')).data!.map((s) => s.name)).toEqual(["Friend's Teamspace", 'Studio']);
    const seenByOwner = (await asOwner.GET('/api/space/{id}', inStudio)).data!;
    expect(seenByOwner.invites).toEqual([]);
    expect(seenByOwner.members.map((m) => `${m.role}:${m.email}`)).toEqual(['owner:owner@example.com', 'editor:friend@example.com']);

    // Shown once: the flag clears.
    const seen = await asFriend.PATCH('/api/users/current', { body: { welcome_seen_space_id: studio.id } });
    expect(seen.response.status).toBe(200);
    expect(seen.data!.pending_welcome_spaces).toEqual([]);

    // Space-scoped endpoints of other domains: members in, others out.
    const list = (c: ReturnType<typeof typedClient>) => c.GET('/api/project/paginated', { params: { query: { space_id: studio.id } } });
    expect((await list(asFriend)).response.status).toBe(200);
    const outside = await list(asStranger);
    expect(outside.response.status).toBe(403);
    expect(outside.error).toEqual({ detail: TEXT.noAccess });
    const settingsOutside = await asStranger.GET('/api/settings', { params: { query: { space_id: studio.id } } });
    expect(settingsOutside.response.status).toBe(403);
    expect(settingsOutside.error).toEqual({ detail: TEXT.noAccess });
    expect((await asFriend.GET('/api/settings', { params: { query: { space_id: studio.id } } })).data!.kind).toBe('space');

    // An already registered person invited later joins at once and sees the welcome once.
    const invited = await asOwner.POST('/api/space/{id}/invite', { ...inStudio, body: { emails: ['stranger@example.com'] } });
    expect(invited.response.status).toBe(200);
    expect((await asStranger.GET('/api/users/current')).data!.pending_welcome_spaces).toEqual([studio.id]);
    expect((await list(asStranger)).response.status).toBe(200);

    // The owner removes the friend: access ends everywhere.
    const removed = await asOwner.DELETE('/api/space/{id}/members/remove', { params: { path: { id: studio.id }, query: { member_id: friend.user.id } } });
    expect(removed.response.status).toBe(200);
    expect((await list(asFriend)).error).toEqual({ detail: TEXT.noAccess });
    expect((await asFriend.GET('/api/space/list')).data!.map((s) => s.name)).toEqual(["Friend's Teamspace"]);

    // The stranger leaves by themselves and goes to their default space; the welcome flag goes too.
    const left = await asStranger.GET('/api/space/{id}/leave', inStudio);
    const strangerDefault = (await asStranger.GET('/api/space/list')).data![0]!;
    expect(left.data).toEqual({ default_space_id: strangerDefault.id });
    expect((await asStranger.GET('/api/users/current')).data!.pending_welcome_spaces).toEqual([]);

    // The superuser may look into the space.
    expect((await asRoot.GET('/api/space/{id}', inStudio)).response.status).toBe(200);
  });

  it('a downgrade makes deletion possible (owned spaces above the new limit)', async () => {
    const signIn = await typedClient(h).POST('/api/auth/sign-in', { body: { email: 'root@example.com', password: 'correct-horse-1' } });
    const asRoot = typedClient(h, signIn.data!.access_token);
    const o = await signUpAndCreate(h, 'down@example.com');
    const asOwner = typedClient(h, o.token);
    const plan = (p: 'creator_pro' | 'trial') => asRoot.PATCH('/api/admin/users/{id}', { params: { path: { id: o.user.id } }, body: { plan: p } });
    await plan('creator_pro');
    const s = await asOwner.POST('/api/space/create', { body: { data: { name: 'Extra', color: 'sand' } } });
    expect(s.response.status).toBe(201);
    const extra = { params: { path: { id: s.data!.id } } };
    expect((await asOwner.DELETE('/api/space/{id}', extra)).response.status).toBe(409);
    await plan('trial');
    const r = await asOwner.DELETE('/api/space/{id}', extra);
    expect(r.response.status).toBe(200);
    expect(r.data!.default_space_id).toBe((await asOwner.GET('/api/space/list')).data![0]!.id);
  });
});
