// Teamspaces: every rule of spec sections 4-6 through the HTTP API, with several users.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultTeamspaceName, SPACE_COLORS } from '../../../contract/constants';
import { TEXT } from '../../../contract/errors';
import * as ledger from '../../../server/domains/billing/ledger';
import { TEXTS } from '../../../server/domains/spaces/service';
import { claimInvites, ensureDefaultSpace } from '../../../server/domains/spaces/service';
import type { components } from '../../../src/lib/api/schema';
import { createHarness, type Harness } from '../harness';
import { api } from '../helpers';
import { issuesOf, typedClient } from '../typed-client';
import { createSpace, grantPlan, makeUser, type TestUser } from './spaces-fixtures';

let h: Harness;
let n = 0;
const email = (tag: string) => `${tag}-${++n}@example.com`;
const countSpaces = async () => Number((await h.deps.db.one<{ n: number }>('SELECT count(*)::int AS n FROM spaces')).n);
const countInvites = async () => Number((await h.deps.db.one<{ n: number }>('SELECT count(*)::int AS n FROM space_invites')).n);

type Client = ReturnType<typeof typedClient>;
/** The typed client of a user (null: no token). */
const as = (u: TestUser | null): Client => typedClient(h, u?.token);
/** The path parameters of a /api/space/{id} route. */
const at = (id: string) => ({ params: { path: { id } } });
/** An answer's status and error body, to match at once. */
const refusal = (r: { response: Response; error?: unknown }) => ({ status: r.response.status, json: r.error });
/** The body of a request that must answer `status`. */
async function answer<T>(request: Promise<{ data?: T; error?: unknown; response: Response }>, status = 200): Promise<T> {
  const r = await request;
  expect(refusal(r)).toMatchObject({ status });
  return r.data!;
}
/** An error detail that is text starting with `prefix`. */
const detailStartsWith = (error: { detail?: unknown } | undefined, prefix: string) => typeof error?.detail === 'string' && error.detail.startsWith(prefix);

beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h?.close();
});

describe('default space and sign-up', () => {
  it('creates the first Teamspace, named after the user (midnight, default, owner member, trial minutes), once', async () => {
    const u = await makeUser(h, email('first'));
    const again = await ensureDefaultSpace(h.deps.db, { id: u.id, email: u.email });
    expect(again.id).toBe(u.defaultSpaceId);
    const list = await answer(as(u).GET('/api/space/list'));
    expect(list).toEqual([
      {
        id: u.defaultSpaceId,
        name: defaultTeamspaceName(u.email),
        color: 'midnight',
        owner_id: u.id,
        is_active: true,
        is_default: true,
        members: [{ user_id: u.id, email: u.email, role: 'owner' }],
        invites: [],
        credits: { minutes: { total: 3, used: 0 }, video: { total: 0, used: 0 }, lipsync_free_minutes: 0 },
        loudness_target: 'source',
        subtitle_limits: { max_line_chars: 42, max_lines: 2, target_cps: 17, max_cps: 20, min_duration_sec: 0.83, max_duration_sec: 7 },
        shop_domain: null,
      },
    ]);
  });

  it('is safe when called concurrently', async () => {
    const u = await makeUser(h, email('conc'));
    const ids = await Promise.all([1, 2, 3].map(() => ensureDefaultSpace(h.deps.db, { id: u.id, email: u.email })));
    expect(new Set(ids.map((x) => x.id))).toEqual(new Set([u.defaultSpaceId]));
    const owned = await h.deps.db.query('SELECT id FROM spaces WHERE owner_id = $1', [u.id]);
    expect(owned).toHaveLength(1);
  });

  it('turns invites into editor memberships at sign-up and queues the welcome modal', async () => {
    const owner = await makeUser(h, email('own'));
    await grantPlan(h, owner.id, 'enterprise');
    const invitee = email('later');
    const s1 = await createSpace(h, owner, 'Alpha', 'ocean', [invitee]);
    const s2 = await createSpace(h, owner, 'Beta', 'forest');
    await answer(as(owner).POST('/api/space/{id}/invite', { ...at(s2.id), body: { emails: [invitee.toUpperCase()] } }));
    const b = await makeUser(h, invitee);
    expect(new Set(b.claimed)).toEqual(new Set([s1.id, s2.id]));
    const row = await h.deps.db.one<{ pending_welcome_spaces: string[] }>('SELECT pending_welcome_spaces FROM users WHERE id = $1', [b.id]);
    expect(row.pending_welcome_spaces).toEqual(b.claimed);
    expect(await countInvitesFor(invitee)).toBe(0);
    const space = await answer(as(b).GET('/api/space/{id}', at(s1.id)));
    expect(space.members).toEqual([
      { user_id: owner.id, email: owner.email, role: 'owner' },
      { user_id: b.id, email: invitee, role: 'editor' },
    ]);
    expect(space.invites).toEqual([]);
    // A second claim finds nothing and changes nothing.
    expect(await claimInvites(h.deps.db, { id: b.id, email: b.email })).toEqual([]);
  });
});

async function countInvitesFor(e: string) {
  return Number((await h.deps.db.one<{ n: number }>('SELECT count(*)::int AS n FROM space_invites WHERE email = $1', [e])).n);
}

describe('list', () => {
  it('lists the caller\'s memberships, own default first, then by name', async () => {
    const a = await makeUser(h, email('sorter'));
    await grantPlan(h, a.id, 'enterprise');
    await createSpace(h, a, 'zeta');
    await createSpace(h, a, 'Alpha');
    await createSpace(h, a, 'beta');
    const other = await makeUser(h, email('other'));
    await grantPlan(h, other.id, 'enterprise');
    const foreign = await createSpace(h, other, 'Aardvark', 'sand', [a.email]);
    await createSpace(h, other, 'Hidden', 'sand');
    const list = await answer(as(a).GET('/api/space/list'));
    expect(list.map((s) => s.name)).toEqual([defaultTeamspaceName(a.email), 'Aardvark', 'Alpha', 'beta', 'zeta']);
    expect(list[1].id).toBe(foreign.id);
    expect(list[0].is_default).toBe(true);
  });

  it('needs a signed-in account', async () => {
    expect((await as(null).GET('/api/space/list')).response.status).toBe(401);
  });
});

describe('create', () => {
  it.each(['trial', 'free', 'starter', 'creator'])('refuses another space on %s', async (tier) => {
    const u = await makeUser(h, email(tier));
    if (tier !== 'trial') await grantPlan(h, u.id, tier);
    const before = await countSpaces();
    const r = await as(u).POST('/api/space/create', { body: { data: { name: 'Team', color: 'ocean' }, emails: [] } });
    expect(r.response.status).toBe(403);
    expect(r.error?.detail).toBe(TEXTS.createNotInPlan);
    expect(await countSpaces()).toBe(before);
  });

  it('creator_pro: one extra space, then the limit', async () => {
    const u = await makeUser(h, email('pro'));
    await grantPlan(h, u.id, 'creator_pro');
    const s = await createSpace(h, u, '  Studio  ', 'berry');
    expect(s).toMatchObject({ name: 'Studio', color: 'berry', owner_id: u.id, is_default: false, is_active: true, invites: [] });
    expect(s.members).toEqual([{ user_id: u.id, email: u.email, role: 'owner' }]);
    const r = await as(u).POST('/api/space/create', { body: { data: { name: 'Another', color: 'ocean' } } });
    expect(r.response.status).toBe(403);
    expect(r.error?.detail).toBe(TEXTS.createLimit);
  });

  it('reports the caller\'s limits', async () => {
    const u = await makeUser(h, email('limits'));
    const limits = () => answer(as(u).GET('/api/space/limits'));
    expect(await limits()).toEqual({
      plan: 'trial', subscription_active: false, spaces_enabled: false, spaces_limit: 1, user_limit: 1, owned_spaces: 1, can_create: false,
    });
    await grantPlan(h, u.id, 'creator_pro');
    expect(await limits()).toMatchObject({ plan: 'creator_pro', subscription_active: true, can_create: true, spaces_limit: 2, user_limit: 3 });
    await createSpace(h, u, 'One more');
    expect(await limits()).toMatchObject({ owned_spaces: 2, can_create: false });
    await grantPlan(h, u.id, 'enterprise');
    expect(await limits()).toMatchObject({ spaces_limit: null, user_limit: null, can_create: true });
  });

  it('enterprise: unlimited spaces', async () => {
    const u = await makeUser(h, email('ent'));
    await grantPlan(h, u.id, 'enterprise');
    for (let i = 0; i < 4; i++) await createSpace(h, u, `Space ${i}`);
    expect(await answer(as(u).GET('/api/space/list'))).toHaveLength(5);
  });

  it('an expired subscription counts as no plan', async () => {
    const u = await makeUser(h, email('expired'));
    await grantPlan(h, u.id, 'business', { periodEnd: new Date(Date.now() - 1000) });
    const r = await as(u).POST('/api/space/create', { body: { data: { name: 'Team', color: 'ocean' } } });
    expect(r.response.status).toBe(403);
    expect(r.error?.detail).toBe(TEXTS.createNotInPlan);
  });

  it('two parallel creates at the limit: exactly one succeeds', async () => {
    const u = await makeUser(h, email('race-create'));
    await grantPlan(h, u.id, 'creator_pro');
    const rs = await Promise.all([1, 2].map((i) => as(u).POST('/api/space/create', { body: { data: { name: `R${i}`, color: 'ocean' } } })));
    expect(rs.map((r) => r.response.status).sort()).toEqual([201, 403]);
    expect(await h.deps.db.query('SELECT id FROM spaces WHERE owner_id = $1', [u.id])).toHaveLength(2);
  });

  describe('bad input (nothing written)', () => {
    let u: TestUser;
    beforeAll(async () => {
      u = await makeUser(h, email('badcreate'));
      await grantPlan(h, u.id, 'enterprise');
    });
    // Each body is one the document allows (name and colour are optional strings there): the server's rules refuse it.
    const cases: [string, components['schemas']['CreateSpaceRequest'], string][] = [
      ['empty name', { data: { name: '', color: 'ocean' } }, TEXT.fieldRequired],
      ['blank name', { data: { name: '   ', color: 'ocean' } }, TEXT.fieldRequired],
      ['missing name', { data: { color: 'ocean' } }, 'Field is required'],
      ['500-character name', { data: { name: 'x'.repeat(500), color: 'ocean' } }, 'Name must be at most 100 characters'],
      ['colour outside the palette', { data: { name: 'Team', color: 'pink' } }, TEXT.fieldRequired],
      ['missing colour', { data: { name: 'Team' } }, 'Field is required'],
      ['bad e-mail', { data: { name: 'Team', color: 'ocean' }, emails: ['nope'] }, TEXT.incorrectEmail],
    ];
    it.each(cases)('%s -> 422', async (_label, body, msg) => {
      const before = await countSpaces();
      const r = await as(u).POST('/api/space/create', { body });
      expect(r.response.status).toBe(422);
      expect(issuesOf(r.error).map((d) => d.msg)).toContain(msg);
      expect(await countSpaces()).toBe(before);
    });
    it('malformed JSON -> 422', async () => {
      const r = await h.request('POST', '/api/space/create', { token: u.token, raw: '{', headers: { 'content-type': 'application/json' } });
      expect(r.status).toBe(422);
    });
    it('the owner\'s own e-mail among the editors -> 409 and no space', async () => {
      const before = await countSpaces();
      const r = await as(u).POST('/api/space/create', { body: { data: { name: 'Team', color: 'ocean' }, emails: [u.email] } });
      expect(refusal(r)).toEqual({ status: 409, json: { detail: TEXT.emailAlreadyAdded } });
      expect(await countSpaces()).toBe(before);
    });
    it('more editors than the plan allows -> 403 and no space', async () => {
      const p = await makeUser(h, email('procap'));
      await grantPlan(h, p.id, 'creator_pro');
      const before = await countSpaces();
      const r = await as(p).POST('/api/space/create', {
        body: { data: { name: 'Team', color: 'ocean' }, emails: [email('x'), email('y'), email('z')] },
      });
      expect(refusal(r)).toEqual({ status: 403, json: { detail: TEXTS.memberLimit(3) } });
      expect(await countSpaces()).toBe(before);
    });
  });
});

describe('update', () => {
  it('the owner renames and recolours; editors cannot', async () => {
    const o = await makeUser(h, email('upd'));
    await grantPlan(h, o.id, 'business');
    const ed = await makeUser(h, email('upd-ed'));
    const s = await createSpace(h, o, 'Old', 'ocean', [ed.email]);
    expect(await answer(as(o).PATCH('/api/space/{id}', { ...at(s.id), body: { name: 'New' } }))).toMatchObject({ name: 'New', color: 'ocean' });
    expect(await answer(as(o).PATCH('/api/space/{id}', { ...at(s.id), body: { color: 'coral' } }))).toMatchObject({ name: 'New', color: 'coral' });
    const r = await as(ed).PATCH('/api/space/{id}', { ...at(s.id), body: { name: 'Hijack' } });
    expect(refusal(r)).toEqual({ status: 403, json: { detail: 'Only the owner can do this' } });
    // Bodies the document allows (every field optional, the colour a string): the server's rules refuse them.
    const bad: components['schemas']['UpdateSpaceRequest'][] = [{ name: '' }, { name: 'x'.repeat(500) }, { color: 'pink' }, {}];
    for (const body of bad) {
      expect((await as(o).PATCH('/api/space/{id}', { ...at(s.id), body })).response.status).toBe(422);
    }
    expect(await answer(as(o).GET('/api/space/{id}', at(s.id)))).toMatchObject({ name: 'New', color: 'coral' });
  });

  it('the owner sets the dubs\' loudness target (default: the source\'s own); editors cannot; unknown targets are refused', async () => {
    const o = await makeUser(h, email('loud'));
    await grantPlan(h, o.id, 'business');
    const ed = await makeUser(h, email('loud-ed'));
    const s = await createSpace(h, o, 'Loud', 'ocean', [ed.email]);
    expect(await answer(as(o).GET('/api/space/{id}', at(s.id)))).toMatchObject({ loudness_target: 'source' });
    expect(await answer(as(o).PATCH('/api/space/{id}', { ...at(s.id), body: { loudness_target: 'broadcast_-23' } }))).toMatchObject({ loudness_target: 'broadcast_-23', name: 'Loud' });
    expect(refusal(await as(ed).PATCH('/api/space/{id}', { ...at(s.id), body: { loudness_target: 'web_-14' } }))).toEqual({ status: 403, json: { detail: 'Only the owner can do this' } });
    // Untyped: a loudness target outside the document's enum.
    expect((await api(h, 'PATCH', `/api/space/${s.id}`, { token: o.token, body: { loudness_target: 'max' } })).status).toBe(422);
    expect(await answer(as(o).GET('/api/space/{id}', at(s.id)))).toMatchObject({ loudness_target: 'broadcast_-23' });
  });

  it('the owner sets the subtitle limits (default: common guidelines); changes merge, null resets; editors cannot; out-of-range values are refused', async () => {
    const o = await makeUser(h, email('subs'));
    await grantPlan(h, o.id, 'business');
    const ed = await makeUser(h, email('subs-ed'));
    const s = await createSpace(h, o, 'Subs', 'ocean', [ed.email]);
    const defaults = { max_line_chars: 42, max_lines: 2, target_cps: 17, max_cps: 20, min_duration_sec: 0.83, max_duration_sec: 7 };
    const patch = (u: TestUser, subtitle_limits: components['schemas']['UpdateSpaceRequest']['subtitle_limits']) =>
      as(u).PATCH('/api/space/{id}', { ...at(s.id), body: { subtitle_limits } });
    expect((await answer(as(o).GET('/api/space/{id}', at(s.id)))).subtitle_limits).toEqual(defaults);
    expect((await answer(patch(o, { max_line_chars: 37, max_lines: 1 }))).subtitle_limits).toEqual({ ...defaults, max_line_chars: 37, max_lines: 1 });
    expect((await answer(patch(o, { target_cps: 15 }))).subtitle_limits).toEqual({ ...defaults, max_line_chars: 37, max_lines: 1, target_cps: 15 });
    expect(refusal(await patch(ed, { max_lines: 3 }))).toEqual({ status: 403, json: { detail: 'Only the owner can do this' } });
    // Out of range, fractional or empty: numbers the document allows, the server's bounds refuse.
    for (const bad of [{ max_line_chars: 500 }, { max_lines: 0 }, { max_lines: 1.5 }, {}]) {
      expect((await patch(o, bad)).response.status, JSON.stringify(bad)).toBe(422);
    }
    // Untyped: a text where the document wants a number, and a field it does not have.
    for (const bad of [{ target_cps: 'fast' }, { colour: 1 }]) {
      expect((await api(h, 'PATCH', `/api/space/${s.id}`, { token: o.token, body: { subtitle_limits: bad } })).status, JSON.stringify(bad)).toBe(422);
    }
    expect((await answer(as(o).GET('/api/space/{id}', at(s.id)))).subtitle_limits).toEqual({ ...defaults, max_line_chars: 37, max_lines: 1, target_cps: 15 });
    expect((await answer(patch(o, null))).subtitle_limits).toEqual(defaults);
  });

  it('accepts every palette colour', async () => {
    const o = await makeUser(h, email('palette'));
    for (const color of SPACE_COLORS) {
      expect(await answer(as(o).PATCH('/api/space/{id}', { ...at(o.defaultSpaceId), body: { color } }))).toMatchObject({ color });
    }
  });
});

describe('invites and members', () => {
  let owner: TestUser;
  let space: { id: string };
  beforeAll(async () => {
    owner = await makeUser(h, email('inv-owner'));
    await grantPlan(h, owner.id, 'creator_pro');
    space = await createSpace(h, owner, 'Invites');
  });
  const invite = (u: TestUser, spaceId: string, emails: string[]) => as(u).POST('/api/space/{id}/invite', { ...at(spaceId), body: { emails } });
  const removeInvite = (u: TestUser, spaceId: string, inviteId: string) =>
    as(u).DELETE('/api/space/{id}/invite/remove', { params: { path: { id: spaceId }, query: { invite_id: inviteId } } });
  const removeMember = (u: TestUser, spaceId: string, memberId: string) =>
    as(u).DELETE('/api/space/{id}/members/remove', { params: { path: { id: spaceId }, query: { member_id: memberId } } });

  it('invites an e-mail without an account as a pending invite; a registered one joins at once', async () => {
    const registered = await makeUser(h, email('registered'));
    const pending = email('pending');
    const s = await answer(invite(owner, space.id, [pending, registered.email]));
    expect(s.invites).toEqual([{ id: expect.any(String), email: pending }]);
    expect(s.members.map((m) => [m.email, m.role])).toEqual([
      [owner.email, 'owner'],
      [registered.email, 'editor'],
    ]);
    const me = await h.deps.db.one<{ pending_welcome_spaces: string[] }>('SELECT pending_welcome_spaces FROM users WHERE id = $1', [registered.id]);
    expect(me.pending_welcome_spaces).toEqual([space.id]);
    expect((await answer(as(registered).GET('/api/space/list'))).map((x) => x.id)).toContain(space.id);
  });

  it('refuses the owner, a member, an invited e-mail and duplicates with "This email is already added"', async () => {
    const s = await answer(as(owner).GET('/api/space/{id}', at(space.id)));
    const member = s.members[1].email;
    const invited = s.invites[0].email;
    for (const emails of [[owner.email], [member], [invited.toUpperCase()], [email('dup'), email('dup2')].map(() => 'same@example.com')]) {
      const before = await countInvites();
      const r = await invite(owner, space.id, emails);
      expect(refusal(r)).toEqual({ status: 409, json: { detail: TEXT.emailAlreadyAdded } });
      expect(await countInvites()).toBe(before);
    }
  });

  it('refuses bad input', async () => {
    // No e-mail, or one that is not an e-mail: lists the document allows, the server's rules refuse.
    for (const emails of [[], ['not-an-email']]) {
      expect((await invite(owner, space.id, emails)).response.status).toBe(422);
    }
    // Untyped: no emails at all, and a text where the document wants a list.
    for (const body of [{}, { emails: 'a@b.co' }]) {
      expect((await api(h, 'POST', `/api/space/${space.id}/invite`, { token: owner.token, body })).status).toBe(422);
    }
    const r = await invite(owner, space.id, ['bad']);
    expect(issuesOf(r.error)[0].msg).toBe(TEXT.incorrectEmail);
  });

  it('stops at the member limit (members + pending invites)', async () => {
    // owner + member + pending = 3 = creator_pro limit.
    const r = await invite(owner, space.id, [email('fourth')]);
    expect(refusal(r)).toEqual({ status: 403, json: { detail: TEXTS.memberLimit(3) } });
  });

  it('removing an invite frees a seat; foreign, unknown, malformed and missing ids fail', async () => {
    const s = await answer(as(owner).GET('/api/space/{id}', at(space.id)));
    const other = await makeUser(h, email('inv-other'));
    await grantPlan(h, other.id, 'business');
    const foreign = await createSpace(h, other, 'Foreign', 'ocean', [email('foreign-inv')]);
    const foreignInvite = foreign.invites[0].id;
    let r = await removeInvite(owner, space.id, foreignInvite);
    expect(refusal(r)).toEqual({ status: 404, json: { detail: TEXTS.inviteNotFound } });
    r = await removeInvite(owner, space.id, '00000000-0000-4000-8000-000000000000');
    expect(r.response.status).toBe(404);
    r = await removeInvite(owner, space.id, 'nope');
    expect(r.response.status).toBe(404);
    r = await as(owner).DELETE('/api/space/{id}/invite/remove', at(space.id));
    expect(r.response.status).toBe(422);
    expect(issuesOf(r.error)[0]).toMatchObject({ loc: ['query', 'invite_id'], msg: TEXT.fieldRequired });
    // The foreign owner cannot remove our invite through their space either.
    r = await removeInvite(other, foreign.id, s.invites[0].id);
    expect(r.response.status).toBe(404);
    // Through the JSON body, as the spec's client sends it.
    const after = await answer(as(owner).DELETE('/api/space/{id}/invite/remove', { ...at(space.id), body: { invite_id: s.invites[0].id } }));
    expect(after.invites).toEqual([]);
    expect((await answer(as(other).GET('/api/space/{id}', at(foreign.id)))).invites).toHaveLength(1);
    const again = await answer(invite(owner, space.id, [email('fills')]));
    expect(again.invites).toHaveLength(1);
  });

  it('a race of two invites at the limit: exactly one succeeds', async () => {
    const s = await answer(as(owner).GET('/api/space/{id}', at(space.id)));
    await answer(removeInvite(owner, space.id, s.invites[0].id));
    const rs = await Promise.all([email('race-a'), email('race-b'), email('race-c')].map((e) => invite(owner, space.id, [e])));
    expect(rs.map((r) => r.response.status).sort()).toEqual([200, 403, 403]);
    const after = await answer(as(owner).GET('/api/space/{id}', at(space.id)));
    expect(after.members.length + after.invites.length).toBe(3);
  });

  it('editors cannot invite, remove invites or remove members', async () => {
    const s = await answer(as(owner).GET('/api/space/{id}', at(space.id)));
    const editor = await makeUserToken(s.members[1].user_id);
    const attempts: [string, () => Promise<{ response: Response; error?: unknown }>][] = [
      [`POST /api/space/${space.id}/invite`, () => invite(editor, space.id, [email('sneaky')])],
      [`DELETE /api/space/${space.id}/invite/remove?invite_id=${s.invites[0].id}`, () => removeInvite(editor, space.id, s.invites[0].id)],
      [`DELETE /api/space/${space.id}/members/remove?member_id=${owner.id}`, () => removeMember(editor, space.id, owner.id)],
      [`DELETE /api/space/${space.id}`, () => as(editor).DELETE('/api/space/{id}', at(space.id))],
    ];
    for (const [label, attempt] of attempts) {
      expect(refusal(await attempt()), label).toEqual({ status: 403, json: { detail: 'Only the owner can do this' } });
    }
  });

  it('the owner cannot be removed; unknown members are 404; a removed member loses access', async () => {
    const s = await answer(as(owner).GET('/api/space/{id}', at(space.id)));
    let r = await removeMember(owner, space.id, owner.id);
    expect(refusal(r)).toEqual({ status: 400, json: { detail: TEXTS.ownerNotRemoved } });
    const stranger = await makeUser(h, email('stranger'));
    r = await removeMember(owner, space.id, stranger.id);
    expect(refusal(r)).toEqual({ status: 404, json: { detail: TEXTS.memberNotFound } });
    r = await removeMember(owner, space.id, 'x');
    expect(r.response.status).toBe(404);
    r = await as(owner).DELETE('/api/space/{id}/members/remove', at(space.id));
    expect(r.response.status).toBe(422);
    const editorId = s.members[1].user_id;
    const editor = await makeUserToken(editorId);
    expect((await as(editor).GET('/api/space/{id}', at(space.id))).response.status).toBe(200);
    const after = await answer(as(owner).DELETE('/api/space/{id}/members/remove', { ...at(space.id), body: { member_id: editorId } }));
    expect(after.members).toEqual([{ user_id: owner.id, email: owner.email, role: 'owner' }]);
    const gone = await as(editor).GET('/api/space/{id}', at(space.id));
    expect(gone.response.status).toBe(403);
    expect(detailStartsWith(gone.error, TEXT.noAccess)).toBe(true);
    const row = await h.deps.db.one<{ pending_welcome_spaces: string[] }>('SELECT pending_welcome_spaces FROM users WHERE id = $1', [editorId]);
    expect(row.pending_welcome_spaces).not.toContain(space.id);
  });

  it('business: 5 seats; enterprise: unlimited', async () => {
    const b = await makeUser(h, email('biz'));
    await grantPlan(h, b.id, 'business');
    const bs = await createSpace(h, b, 'Biz', 'ocean', [1, 2, 3].map(() => email('b')));
    await answer(invite(b, bs.id, [email('b')]));
    const r = await invite(b, bs.id, [email('b6')]);
    expect(refusal(r)).toEqual({ status: 403, json: { detail: TEXTS.memberLimit(5) } });
    const e = await makeUser(h, email('ent-inv'));
    await grantPlan(h, e.id, 'enterprise');
    const es = await createSpace(h, e, 'Ent', 'ocean', Array.from({ length: 12 }, () => email('e')));
    expect(es.invites).toHaveLength(12);
  });

  it('trial and creator owners cannot invite, not even into their default space', async () => {
    for (const tier of ['trial', 'creator']) {
      const u = await makeUser(h, email(`noinv-${tier}`));
      if (tier !== 'trial') await grantPlan(h, u.id, tier);
      const r = await invite(u, u.defaultSpaceId, [email('friend')]);
      expect(refusal(r)).toEqual({ status: 403, json: { detail: TEXTS.inviteNotInPlan } });
    }
  });
});

/** A token for an existing user id (members created by invite). */
async function makeUserToken(userId: string): Promise<TestUser> {
  const { signAccessToken } = await import('../../../server/domains/auth/tokens');
  const u = await h.deps.db.one<{ id: string; email: string; identity_id: string }>('SELECT id, email, identity_id FROM users WHERE id = $1', [userId]);
  const token = await signAccessToken(h.config.jwtSecret, 3600, { sub: u.identity_id, email: u.email, provider: 'password' });
  return { id: u.id, email: u.email, token, defaultSpaceId: '', claimed: [] };
}

describe('leave', () => {
  it('an editor leaves and goes to their default space; the default space and the owner cannot leave', async () => {
    const o = await makeUser(h, email('leave-o'));
    await grantPlan(h, o.id, 'business');
    const ed = await makeUser(h, email('leave-ed'));
    const s = await createSpace(h, o, 'Leavable', 'ocean', [ed.email]);
    await answer(as(o).POST('/api/space/{id}/invite', { ...at(o.defaultSpaceId), body: { emails: [ed.email] } }));
    const leave = (u: TestUser, id: string) => as(u).GET('/api/space/{id}/leave', at(id));
    // Owner of either space.
    expect(refusal(await leave(o, s.id))).toEqual({ status: 400, json: { detail: TEXTS.ownerCannotLeave } });
    expect(refusal(await leave(o, o.defaultSpaceId))).toEqual({ status: 400, json: { detail: TEXTS.ownerCannotLeave } });
    // A default space cannot be left.
    expect(refusal(await leave(ed, o.defaultSpaceId))).toEqual({ status: 400, json: { detail: TEXTS.defaultNotLeft } });
    expect(await answer(leave(ed, s.id))).toEqual({ default_space_id: ed.defaultSpaceId });
    const r = await as(ed).GET('/api/space/{id}', at(s.id));
    expect(r.response.status).toBe(403);
    expect((await answer(as(ed).GET('/api/space/list'))).map((x) => x.id)).not.toContain(s.id);
    expect((await leave(ed, s.id)).response.status).toBe(403);
  });
});

describe('delete', () => {
  const remove = (u: TestUser, id: string) => as(u).DELETE('/api/space/{id}', at(id));

  it('follows spec section 5 exactly', async () => {
    const o = await makeUser(h, email('del'));
    await grantPlan(h, o.id, 'creator_pro');
    const ed = await makeUser(h, email('del-ed'));
    const s = await createSpace(h, o, 'Doomed', 'ocean', [ed.email]);
    // The default space: never.
    expect(refusal(await remove(o, o.defaultSpaceId))).toEqual({ status: 400, json: { detail: TEXTS.defaultNotDeleted } });
    // Two owned, limit 2: owned does not exceed the limit.
    expect(refusal(await remove(o, s.id))).toEqual({ status: 409, json: { detail: TEXTS.deleteNotAllowed } });
    // An editor: never.
    expect((await remove(ed, s.id)).response.status).toBe(403);
    // After a downgrade the owner holds more than the limit (1): allowed.
    await grantPlan(h, o.id, 'creator');
    expect(await answer(remove(o, s.id))).toEqual({ default_space_id: o.defaultSpaceId });
    expect(await h.deps.db.query('SELECT id FROM spaces WHERE id = $1', [s.id])).toEqual([]);
    expect(await h.deps.db.query('SELECT user_id FROM space_members WHERE space_id = $1', [s.id])).toEqual([]);
    expect((await as(ed).GET('/api/space/{id}', at(s.id))).response.status).toBe(403);
    // Now one owned: the default space stays.
    expect((await remove(o, o.defaultSpaceId)).response.status).toBe(400);
  });

  it('with an unset limit (enterprise) any non-default space of several', async () => {
    const o = await makeUser(h, email('del-ent'));
    await grantPlan(h, o.id, 'enterprise');
    const s = await createSpace(h, o, 'Gone');
    expect(await answer(remove(o, s.id))).toEqual({ default_space_id: o.defaultSpaceId });
  });
});

describe('credits and settings', () => {
  it('returns the space credits and the features of the owner\'s plan to members', async () => {
    const o = await makeUser(h, email('cred'));
    await grantPlan(h, o.id, 'business');
    const ed = await makeUser(h, email('cred-ed'));
    const s = await createSpace(h, o, 'Cred', 'ocean', [ed.email]);
    await ledger.post(h.deps.db, { spaceId: s.id, kind: 'purchase', minutes: 120.5, ref: 'pack-1' });
    await ledger.post(h.deps.db, { spaceId: s.id, kind: 'debit', minutes: 20.25, ref: 'work-1' });
    expect(await answer(as(ed).GET('/api/space/{id}/credits', at(s.id)))).toEqual({
      minutes: { total: 120.5, used: 20.25 },
      video: { total: 0, used: 0 },
      lipsync_free_minutes: 0,
    });
    const st = await answer(as(ed).GET('/api/space/{id}/settings', at(s.id)));
    expect(st.kind).toBe('space');
    expect(st.scope_settings.available_features.spaces).toMatchObject({ enabled: true, metadata: { user_limit: 5 } });
    expect(st.scope_settings.available_features.glossary.enabled).toBe(true);
    // A trial owner's space: no Teamspace members, no glossary.
    const t = await makeUser(h, email('cred-trial'));
    const ts = await answer(as(t).GET('/api/space/{id}/settings', at(t.defaultSpaceId)));
    expect(ts.scope_settings.available_features.spaces.enabled).toBe(false);
    expect(ts.scope_settings.available_features.glossary.enabled).toBe(false);
  });
});

describe('access guard and isolation', () => {
  let a: TestUser;
  let b: TestUser;
  let spaceB: { id: string; invites: { id: string }[] };
  beforeAll(async () => {
    a = await makeUser(h, email('iso-a'));
    b = await makeUser(h, email('iso-b'));
    await grantPlan(h, a.id, 'business');
    await grantPlan(h, b.id, 'business');
    await createSpace(h, a, 'A space');
    spaceB = await createSpace(h, b, 'B space', 'ocean', [email('b-inv')]);
  });

  /** Every /api/space/{id} route, as `c` asks it of space `id` (the client encodes the id into the path). */
  const endpoints = (id: string, inviteId: string, memberId: string): [string, (c: Client) => Promise<{ response: Response; error?: unknown }>][] => [
    [`GET /api/space/${id}`, (c) => c.GET('/api/space/{id}', at(id))],
    [`PATCH /api/space/${id}`, (c) => c.PATCH('/api/space/{id}', { ...at(id), body: { name: 'Mine now' } })],
    [`DELETE /api/space/${id}`, (c) => c.DELETE('/api/space/{id}', at(id))],
    [`GET /api/space/${id}/credits`, (c) => c.GET('/api/space/{id}/credits', at(id))],
    [`GET /api/space/${id}/settings`, (c) => c.GET('/api/space/{id}/settings', at(id))],
    [`GET /api/space/${id}/leave`, (c) => c.GET('/api/space/{id}/leave', at(id))],
    [`POST /api/space/${id}/invite`, (c) => c.POST('/api/space/{id}/invite', { ...at(id), body: { emails: ['intruder@example.com'] } })],
    [`DELETE /api/space/${id}/invite/remove?invite_id=${inviteId}`, (c) => c.DELETE('/api/space/{id}/invite/remove', { params: { path: { id }, query: { invite_id: inviteId } } })],
    [`DELETE /api/space/${id}/members/remove?member_id=${memberId}`, (c) => c.DELETE('/api/space/{id}/members/remove', { params: { path: { id }, query: { member_id: memberId } } })],
  ];

  it('a member of A gets "You have no access to this resource" for B through every endpoint', async () => {
    for (const [label, request] of endpoints(spaceB.id, spaceB.invites[0].id, b.id)) {
      expect(refusal(await request(as(a))), label).toEqual({ status: 403, json: { detail: TEXT.noAccess } });
    }
    const after = await answer(as(b).GET('/api/space/{id}', at(spaceB.id)));
    expect(after).toMatchObject({ name: 'B space', invites: [{ id: spaceB.invites[0].id }] });
    expect(after.members).toHaveLength(1);
    expect((await answer(as(a).GET('/api/space/list'))).map((s) => s.id)).not.toContain(spaceB.id);
  });

  it('unknown and malformed ids answer the same', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid', "1'; DROP TABLE spaces; --"]) {
      for (const [label, request] of endpoints(id, '00000000-0000-4000-8000-000000000000', a.id)) {
        expect(refusal(await request(as(a))), label).toEqual({ status: 403, json: { detail: TEXT.noAccess } });
      }
    }
  });

  it('superusers may enter any space, but owner actions stay with the owner', async () => {
    const su = await makeUser(h, email('root'), { superuser: true });
    expect((await answer(as(su).GET('/api/space/{id}', at(spaceB.id)))).name).toBe('B space');
    expect((await as(su).GET('/api/space/{id}/credits', at(spaceB.id))).response.status).toBe(200);
    expect(refusal(await as(su).PATCH('/api/space/{id}', { ...at(spaceB.id), body: { name: 'x' } }))).toEqual({ status: 403, json: { detail: 'Only the owner can do this' } });
    expect(refusal(await as(su).GET('/api/space/{id}/leave', at(spaceB.id)))).toEqual({ status: 400, json: { detail: TEXTS.notAMember } });
  });

  it('a non-active space is disabled for non-owners', async () => {
    const o = await makeUser(h, email('inactive-o'));
    await grantPlan(h, o.id, 'business');
    const ed = await makeUser(h, email('inactive-ed'));
    const s = await createSpace(h, o, 'Frozen', 'ocean', [ed.email]);
    await h.deps.db.query('UPDATE spaces SET is_active = false WHERE id = $1', [s.id]);
    const r = await as(ed).GET('/api/space/{id}', at(s.id));
    expect(r.response.status).toBe(403);
    expect(detailStartsWith(r.error, TEXT.noAccess)).toBe(true);
    expect((await answer(as(o).GET('/api/space/{id}', at(s.id)))).is_active).toBe(false);
    // Still listed for the editor, marked inactive, so the switcher can show it disabled.
    const listed = (await answer(as(ed).GET('/api/space/list'))).find((x) => x.id === s.id);
    expect(listed?.is_active).toBe(false);
  });
});
