// Teamspaces: every rule of spec sections 4-6 through the HTTP API, with several users.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultTeamspaceName, SPACE_COLORS } from '../../../contract/constants';
import { TEXT } from '../../../contract/errors';
import * as ledger from '../../../server/domains/billing/ledger';
import { TEXTS } from '../../../server/domains/spaces/service';
import { claimInvites, ensureDefaultSpace } from '../../../server/domains/spaces/service';
import { createHarness, type Harness } from '../harness';
import { call, createSpace, grantPlan, makeUser, ok, type TestUser } from './spaces-fixtures';

let h: Harness;
let n = 0;
const email = (tag: string) => `${tag}-${++n}@example.com`;
const countSpaces = async () => Number((await h.deps.db.one<{ n: number }>('SELECT count(*)::int AS n FROM spaces')).n);
const countInvites = async () => Number((await h.deps.db.one<{ n: number }>('SELECT count(*)::int AS n FROM space_invites')).n);

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
    const list = await ok(h, u, 'GET', '/api/space/list');
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
    await ok(h, owner, 'POST', `/api/space/${s2.id}/invite`, { emails: [invitee.toUpperCase()] });
    const b = await makeUser(h, invitee);
    expect(new Set(b.claimed)).toEqual(new Set([s1.id, s2.id]));
    const row = await h.deps.db.one<{ pending_welcome_spaces: string[] }>('SELECT pending_welcome_spaces FROM users WHERE id = $1', [b.id]);
    expect(row.pending_welcome_spaces).toEqual(b.claimed);
    expect(await countInvitesFor(invitee)).toBe(0);
    const space = await ok(h, b, 'GET', `/api/space/${s1.id}`);
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
    const list = await ok(h, a, 'GET', '/api/space/list');
    expect(list.map((s: { name: string }) => s.name)).toEqual([defaultTeamspaceName(a.email), 'Aardvark', 'Alpha', 'beta', 'zeta']);
    expect(list[1].id).toBe(foreign.id);
    expect(list[0].is_default).toBe(true);
  });

  it('needs a signed-in account', async () => {
    expect((await call(h, null, 'GET', '/api/space/list')).status).toBe(401);
  });
});

describe('create', () => {
  it.each(['trial', 'free', 'starter', 'creator'])('refuses another space on %s', async (tier) => {
    const u = await makeUser(h, email(tier));
    if (tier !== 'trial') await grantPlan(h, u.id, tier);
    const before = await countSpaces();
    const r = await call(h, u, 'POST', '/api/space/create', { data: { name: 'Team', color: 'ocean' }, emails: [] });
    expect(r.status).toBe(403);
    expect(r.json.detail).toBe(TEXTS.createNotInPlan);
    expect(await countSpaces()).toBe(before);
  });

  it('creator_pro: one extra space, then the limit', async () => {
    const u = await makeUser(h, email('pro'));
    await grantPlan(h, u.id, 'creator_pro');
    const s = await createSpace(h, u, '  Studio  ', 'berry');
    expect(s).toMatchObject({ name: 'Studio', color: 'berry', owner_id: u.id, is_default: false, is_active: true, invites: [] });
    expect(s.members).toEqual([{ user_id: u.id, email: u.email, role: 'owner' }]);
    const r = await call(h, u, 'POST', '/api/space/create', { data: { name: 'Another', color: 'ocean' } });
    expect(r.status).toBe(403);
    expect(r.json.detail).toBe(TEXTS.createLimit);
  });

  it('reports the caller\'s limits', async () => {
    const u = await makeUser(h, email('limits'));
    expect(await ok(h, u, 'GET', '/api/space/limits')).toEqual({
      plan: 'trial', subscription_active: false, spaces_enabled: false, spaces_limit: 1, user_limit: 1, owned_spaces: 1, can_create: false,
    });
    await grantPlan(h, u.id, 'creator_pro');
    expect(await ok(h, u, 'GET', '/api/space/limits')).toMatchObject({ plan: 'creator_pro', subscription_active: true, can_create: true, spaces_limit: 2, user_limit: 3 });
    await createSpace(h, u, 'One more');
    expect(await ok(h, u, 'GET', '/api/space/limits')).toMatchObject({ owned_spaces: 2, can_create: false });
    await grantPlan(h, u.id, 'enterprise');
    expect(await ok(h, u, 'GET', '/api/space/limits')).toMatchObject({ spaces_limit: null, user_limit: null, can_create: true });
  });

  it('enterprise: unlimited spaces', async () => {
    const u = await makeUser(h, email('ent'));
    await grantPlan(h, u.id, 'enterprise');
    for (let i = 0; i < 4; i++) await createSpace(h, u, `Space ${i}`);
    expect(await ok(h, u, 'GET', '/api/space/list')).toHaveLength(5);
  });

  it('an expired subscription counts as no plan', async () => {
    const u = await makeUser(h, email('expired'));
    await grantPlan(h, u.id, 'business', { periodEnd: new Date(Date.now() - 1000) });
    const r = await call(h, u, 'POST', '/api/space/create', { data: { name: 'Team', color: 'ocean' } });
    expect(r.status).toBe(403);
    expect(r.json.detail).toBe(TEXTS.createNotInPlan);
  });

  it('two parallel creates at the limit: exactly one succeeds', async () => {
    const u = await makeUser(h, email('race-create'));
    await grantPlan(h, u.id, 'creator_pro');
    const rs = await Promise.all([1, 2].map((i) => call(h, u, 'POST', '/api/space/create', { data: { name: `R${i}`, color: 'ocean' } })));
    expect(rs.map((r) => r.status).sort()).toEqual([201, 403]);
    expect(await h.deps.db.query('SELECT id FROM spaces WHERE owner_id = $1', [u.id])).toHaveLength(2);
  });

  describe('bad input (nothing written)', () => {
    let u: TestUser;
    beforeAll(async () => {
      u = await makeUser(h, email('badcreate'));
      await grantPlan(h, u.id, 'enterprise');
    });
    const cases: [string, unknown, string][] = [
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
      const r = await call(h, u, 'POST', '/api/space/create', body);
      expect(r.status).toBe(422);
      expect(r.json.detail.map((d: { msg: string }) => d.msg)).toContain(msg);
      expect(await countSpaces()).toBe(before);
    });
    it('malformed JSON -> 422', async () => {
      const r = await h.request('POST', '/api/space/create', { token: u.token, raw: '{', headers: { 'content-type': 'application/json' } });
      expect(r.status).toBe(422);
    });
    it('the owner\'s own e-mail among the editors -> 409 and no space', async () => {
      const before = await countSpaces();
      const r = await call(h, u, 'POST', '/api/space/create', { data: { name: 'Team', color: 'ocean' }, emails: [u.email] });
      expect(r).toEqual({ status: 409, json: { detail: TEXT.emailAlreadyAdded } });
      expect(await countSpaces()).toBe(before);
    });
    it('more editors than the plan allows -> 403 and no space', async () => {
      const p = await makeUser(h, email('procap'));
      await grantPlan(h, p.id, 'creator_pro');
      const before = await countSpaces();
      const r = await call(h, p, 'POST', '/api/space/create', {
        data: { name: 'Team', color: 'ocean' },
        emails: [email('x'), email('y'), email('z')],
      });
      expect(r).toEqual({ status: 403, json: { detail: TEXTS.memberLimit(3) } });
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
    expect(await ok(h, o, 'PATCH', `/api/space/${s.id}`, { name: 'New' })).toMatchObject({ name: 'New', color: 'ocean' });
    expect(await ok(h, o, 'PATCH', `/api/space/${s.id}`, { color: 'coral' })).toMatchObject({ name: 'New', color: 'coral' });
    const r = await call(h, ed, 'PATCH', `/api/space/${s.id}`, { name: 'Hijack' });
    expect(r).toEqual({ status: 403, json: { detail: 'Only the owner can do this' } });
    for (const body of [{ name: '' }, { name: 'x'.repeat(500) }, { color: 'pink' }, {}]) {
      expect((await call(h, o, 'PATCH', `/api/space/${s.id}`, body)).status).toBe(422);
    }
    expect(await ok(h, o, 'GET', `/api/space/${s.id}`)).toMatchObject({ name: 'New', color: 'coral' });
  });

  it('the owner sets the dubs\' loudness target (default: the source\'s own); editors cannot; unknown targets are refused', async () => {
    const o = await makeUser(h, email('loud'));
    await grantPlan(h, o.id, 'business');
    const ed = await makeUser(h, email('loud-ed'));
    const s = await createSpace(h, o, 'Loud', 'ocean', [ed.email]);
    expect(await ok(h, o, 'GET', `/api/space/${s.id}`)).toMatchObject({ loudness_target: 'source' });
    expect(await ok(h, o, 'PATCH', `/api/space/${s.id}`, { loudness_target: 'broadcast_-23' })).toMatchObject({ loudness_target: 'broadcast_-23', name: 'Loud' });
    expect(await call(h, ed, 'PATCH', `/api/space/${s.id}`, { loudness_target: 'web_-14' })).toEqual({ status: 403, json: { detail: 'Only the owner can do this' } });
    expect((await call(h, o, 'PATCH', `/api/space/${s.id}`, { loudness_target: 'max' })).status).toBe(422);
    expect(await ok(h, o, 'GET', `/api/space/${s.id}`)).toMatchObject({ loudness_target: 'broadcast_-23' });
  });

  it('the owner sets the subtitle limits (default: common guidelines); changes merge, null resets; editors cannot; out-of-range values are refused', async () => {
    const o = await makeUser(h, email('subs'));
    await grantPlan(h, o.id, 'business');
    const ed = await makeUser(h, email('subs-ed'));
    const s = await createSpace(h, o, 'Subs', 'ocean', [ed.email]);
    const defaults = { max_line_chars: 42, max_lines: 2, target_cps: 17, max_cps: 20, min_duration_sec: 0.83, max_duration_sec: 7 };
    expect((await ok(h, o, 'GET', `/api/space/${s.id}`)).subtitle_limits).toEqual(defaults);
    expect((await ok(h, o, 'PATCH', `/api/space/${s.id}`, { subtitle_limits: { max_line_chars: 37, max_lines: 1 } })).subtitle_limits).toEqual({ ...defaults, max_line_chars: 37, max_lines: 1 });
    expect((await ok(h, o, 'PATCH', `/api/space/${s.id}`, { subtitle_limits: { target_cps: 15 } })).subtitle_limits).toEqual({ ...defaults, max_line_chars: 37, max_lines: 1, target_cps: 15 });
    expect(await call(h, ed, 'PATCH', `/api/space/${s.id}`, { subtitle_limits: { max_lines: 3 } })).toEqual({ status: 403, json: { detail: 'Only the owner can do this' } });
    for (const bad of [{ max_line_chars: 500 }, { max_lines: 0 }, { max_lines: 1.5 }, { target_cps: 'fast' }, { colour: 1 }, {}]) {
      expect((await call(h, o, 'PATCH', `/api/space/${s.id}`, { subtitle_limits: bad })).status, JSON.stringify(bad)).toBe(422);
    }
    expect((await ok(h, o, 'GET', `/api/space/${s.id}`)).subtitle_limits).toEqual({ ...defaults, max_line_chars: 37, max_lines: 1, target_cps: 15 });
    expect((await ok(h, o, 'PATCH', `/api/space/${s.id}`, { subtitle_limits: null })).subtitle_limits).toEqual(defaults);
  });

  it('accepts every palette colour', async () => {
    const o = await makeUser(h, email('palette'));
    for (const color of SPACE_COLORS) {
      expect(await ok(h, o, 'PATCH', `/api/space/${o.defaultSpaceId}`, { color })).toMatchObject({ color });
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

  it('invites an e-mail without an account as a pending invite; a registered one joins at once', async () => {
    const registered = await makeUser(h, email('registered'));
    const pending = email('pending');
    const s = await ok(h, owner, 'POST', `/api/space/${space.id}/invite`, { emails: [pending, registered.email] });
    expect(s.invites).toEqual([{ id: expect.any(String), email: pending }]);
    expect(s.members.map((m: { email: string; role: string }) => [m.email, m.role])).toEqual([
      [owner.email, 'owner'],
      [registered.email, 'editor'],
    ]);
    const me = await h.deps.db.one<{ pending_welcome_spaces: string[] }>('SELECT pending_welcome_spaces FROM users WHERE id = $1', [registered.id]);
    expect(me.pending_welcome_spaces).toEqual([space.id]);
    expect((await ok(h, registered, 'GET', '/api/space/list')).map((x: { id: string }) => x.id)).toContain(space.id);
  });

  it('refuses the owner, a member, an invited e-mail and duplicates with "This email is already added"', async () => {
    const s = await ok(h, owner, 'GET', `/api/space/${space.id}`);
    const member = s.members[1].email as string;
    const invited = s.invites[0].email as string;
    for (const emails of [[owner.email], [member], [invited.toUpperCase()], [email('dup'), email('dup2')].map(() => 'same@example.com')]) {
      const before = await countInvites();
      const r = await call(h, owner, 'POST', `/api/space/${space.id}/invite`, { emails });
      expect(r).toEqual({ status: 409, json: { detail: TEXT.emailAlreadyAdded } });
      expect(await countInvites()).toBe(before);
    }
  });

  it('refuses bad input', async () => {
    for (const body of [{ emails: [] }, { emails: ['not-an-email'] }, {}, { emails: 'a@b.co' }]) {
      expect((await call(h, owner, 'POST', `/api/space/${space.id}/invite`, body)).status).toBe(422);
    }
    const r = await call(h, owner, 'POST', `/api/space/${space.id}/invite`, { emails: ['bad'] });
    expect(r.json.detail[0].msg).toBe(TEXT.incorrectEmail);
  });

  it('stops at the member limit (members + pending invites)', async () => {
    // owner + member + pending = 3 = creator_pro limit.
    const r = await call(h, owner, 'POST', `/api/space/${space.id}/invite`, { emails: [email('fourth')] });
    expect(r).toEqual({ status: 403, json: { detail: TEXTS.memberLimit(3) } });
  });

  it('removing an invite frees a seat; foreign, unknown, malformed and missing ids fail', async () => {
    const s = await ok(h, owner, 'GET', `/api/space/${space.id}`);
    const other = await makeUser(h, email('inv-other'));
    await grantPlan(h, other.id, 'business');
    const foreign = await createSpace(h, other, 'Foreign', 'ocean', [email('foreign-inv')]);
    const foreignInvite = foreign.invites[0].id;
    let r = await call(h, owner, 'DELETE', `/api/space/${space.id}/invite/remove?invite_id=${foreignInvite}`);
    expect(r).toEqual({ status: 404, json: { detail: TEXTS.inviteNotFound } });
    r = await call(h, owner, 'DELETE', `/api/space/${space.id}/invite/remove?invite_id=00000000-0000-4000-8000-000000000000`);
    expect(r.status).toBe(404);
    r = await call(h, owner, 'DELETE', `/api/space/${space.id}/invite/remove?invite_id=nope`);
    expect(r.status).toBe(404);
    r = await call(h, owner, 'DELETE', `/api/space/${space.id}/invite/remove`);
    expect(r.status).toBe(422);
    expect(r.json.detail[0]).toMatchObject({ loc: ['query', 'invite_id'], msg: TEXT.fieldRequired });
    // The foreign owner cannot remove our invite through their space either.
    r = await call(h, other, 'DELETE', `/api/space/${foreign.id}/invite/remove?invite_id=${s.invites[0].id}`);
    expect(r.status).toBe(404);
    // Through the JSON body, as the spec's client sends it.
    const after = await ok(h, owner, 'DELETE', `/api/space/${space.id}/invite/remove`, { invite_id: s.invites[0].id });
    expect(after.invites).toEqual([]);
    expect((await ok(h, other, 'GET', `/api/space/${foreign.id}`)).invites).toHaveLength(1);
    const again = await ok(h, owner, 'POST', `/api/space/${space.id}/invite`, { emails: [email('fills')] });
    expect(again.invites).toHaveLength(1);
  });

  it('a race of two invites at the limit: exactly one succeeds', async () => {
    const s = await ok(h, owner, 'GET', `/api/space/${space.id}`);
    await ok(h, owner, 'DELETE', `/api/space/${space.id}/invite/remove?invite_id=${s.invites[0].id}`);
    const rs = await Promise.all(
      [email('race-a'), email('race-b'), email('race-c')].map((e) => call(h, owner, 'POST', `/api/space/${space.id}/invite`, { emails: [e] })),
    );
    expect(rs.map((r) => r.status).sort()).toEqual([200, 403, 403]);
    const after = await ok(h, owner, 'GET', `/api/space/${space.id}`);
    expect(after.members.length + after.invites.length).toBe(3);
  });

  it('editors cannot invite, remove invites or remove members', async () => {
    const s = await ok(h, owner, 'GET', `/api/space/${space.id}`);
    const editor = await makeUserToken(s.members[1].user_id);
    for (const [m, p] of [
      ['POST', `/api/space/${space.id}/invite`],
      ['DELETE', `/api/space/${space.id}/invite/remove?invite_id=${s.invites[0].id}`],
      ['DELETE', `/api/space/${space.id}/members/remove?member_id=${owner.id}`],
      ['DELETE', `/api/space/${space.id}`],
    ] as const) {
      const r = await call(h, editor, m, p, m === 'POST' ? { emails: [email('sneaky')] } : undefined);
      expect(r, `${m} ${p}`).toEqual({ status: 403, json: { detail: 'Only the owner can do this' } });
    }
  });

  it('the owner cannot be removed; unknown members are 404; a removed member loses access', async () => {
    const s = await ok(h, owner, 'GET', `/api/space/${space.id}`);
    let r = await call(h, owner, 'DELETE', `/api/space/${space.id}/members/remove?member_id=${owner.id}`);
    expect(r).toEqual({ status: 400, json: { detail: TEXTS.ownerNotRemoved } });
    const stranger = await makeUser(h, email('stranger'));
    r = await call(h, owner, 'DELETE', `/api/space/${space.id}/members/remove?member_id=${stranger.id}`);
    expect(r).toEqual({ status: 404, json: { detail: TEXTS.memberNotFound } });
    r = await call(h, owner, 'DELETE', `/api/space/${space.id}/members/remove?member_id=x`);
    expect(r.status).toBe(404);
    r = await call(h, owner, 'DELETE', `/api/space/${space.id}/members/remove`);
    expect(r.status).toBe(422);
    const editorId = s.members[1].user_id as string;
    const editor = await makeUserToken(editorId);
    expect((await call(h, editor, 'GET', `/api/space/${space.id}`)).status).toBe(200);
    const after = await ok(h, owner, 'DELETE', `/api/space/${space.id}/members/remove`, { member_id: editorId });
    expect(after.members).toEqual([{ user_id: owner.id, email: owner.email, role: 'owner' }]);
    r = await call(h, editor, 'GET', `/api/space/${space.id}`);
    expect(r.status).toBe(403);
    expect(r.json.detail.startsWith(TEXT.noAccess)).toBe(true);
    const row = await h.deps.db.one<{ pending_welcome_spaces: string[] }>('SELECT pending_welcome_spaces FROM users WHERE id = $1', [editorId]);
    expect(row.pending_welcome_spaces).not.toContain(space.id);
  });

  it('business: 5 seats; enterprise: unlimited', async () => {
    const b = await makeUser(h, email('biz'));
    await grantPlan(h, b.id, 'business');
    const bs = await createSpace(h, b, 'Biz', 'ocean', [1, 2, 3].map(() => email('b')));
    await ok(h, b, 'POST', `/api/space/${bs.id}/invite`, { emails: [email('b')] });
    const r = await call(h, b, 'POST', `/api/space/${bs.id}/invite`, { emails: [email('b6')] });
    expect(r).toEqual({ status: 403, json: { detail: TEXTS.memberLimit(5) } });
    const e = await makeUser(h, email('ent-inv'));
    await grantPlan(h, e.id, 'enterprise');
    const es = await createSpace(h, e, 'Ent', 'ocean', Array.from({ length: 12 }, () => email('e')));
    expect(es.invites).toHaveLength(12);
  });

  it('trial and creator owners cannot invite, not even into their default space', async () => {
    for (const tier of ['trial', 'creator']) {
      const u = await makeUser(h, email(`noinv-${tier}`));
      if (tier !== 'trial') await grantPlan(h, u.id, tier);
      const r = await call(h, u, 'POST', `/api/space/${u.defaultSpaceId}/invite`, { emails: [email('friend')] });
      expect(r).toEqual({ status: 403, json: { detail: TEXTS.inviteNotInPlan } });
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
    await ok(h, o, 'POST', `/api/space/${o.defaultSpaceId}/invite`, { emails: [ed.email] });
    // Owner of either space.
    expect(await call(h, o, 'GET', `/api/space/${s.id}/leave`)).toEqual({ status: 400, json: { detail: TEXTS.ownerCannotLeave } });
    expect(await call(h, o, 'GET', `/api/space/${o.defaultSpaceId}/leave`)).toEqual({ status: 400, json: { detail: TEXTS.ownerCannotLeave } });
    // A default space cannot be left.
    expect(await call(h, ed, 'GET', `/api/space/${o.defaultSpaceId}/leave`)).toEqual({ status: 400, json: { detail: TEXTS.defaultNotLeft } });
    expect(await ok(h, ed, 'GET', `/api/space/${s.id}/leave`)).toEqual({ default_space_id: ed.defaultSpaceId });
    const r = await call(h, ed, 'GET', `/api/space/${s.id}`);
    expect(r.status).toBe(403);
    expect((await ok(h, ed, 'GET', '/api/space/list')).map((x: { id: string }) => x.id)).not.toContain(s.id);
    expect((await call(h, ed, 'GET', `/api/space/${s.id}/leave`)).status).toBe(403);
  });
});

describe('delete', () => {
  it('follows spec section 5 exactly', async () => {
    const o = await makeUser(h, email('del'));
    await grantPlan(h, o.id, 'creator_pro');
    const ed = await makeUser(h, email('del-ed'));
    const s = await createSpace(h, o, 'Doomed', 'ocean', [ed.email]);
    // The default space: never.
    expect(await call(h, o, 'DELETE', `/api/space/${o.defaultSpaceId}`)).toEqual({ status: 400, json: { detail: TEXTS.defaultNotDeleted } });
    // Two owned, limit 2: owned does not exceed the limit.
    expect(await call(h, o, 'DELETE', `/api/space/${s.id}`)).toEqual({ status: 409, json: { detail: TEXTS.deleteNotAllowed } });
    // An editor: never.
    expect((await call(h, ed, 'DELETE', `/api/space/${s.id}`)).status).toBe(403);
    // After a downgrade the owner holds more than the limit (1): allowed.
    await grantPlan(h, o.id, 'creator');
    expect(await ok(h, o, 'DELETE', `/api/space/${s.id}`)).toEqual({ default_space_id: o.defaultSpaceId });
    expect(await h.deps.db.query('SELECT id FROM spaces WHERE id = $1', [s.id])).toEqual([]);
    expect(await h.deps.db.query('SELECT user_id FROM space_members WHERE space_id = $1', [s.id])).toEqual([]);
    expect((await call(h, ed, 'GET', `/api/space/${s.id}`)).status).toBe(403);
    // Now one owned: the default space stays.
    expect((await call(h, o, 'DELETE', `/api/space/${o.defaultSpaceId}`)).status).toBe(400);
  });

  it('with an unset limit (enterprise) any non-default space of several', async () => {
    const o = await makeUser(h, email('del-ent'));
    await grantPlan(h, o.id, 'enterprise');
    const s = await createSpace(h, o, 'Gone');
    expect(await ok(h, o, 'DELETE', `/api/space/${s.id}`)).toEqual({ default_space_id: o.defaultSpaceId });
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
    expect(await ok(h, ed, 'GET', `/api/space/${s.id}/credits`)).toEqual({
      minutes: { total: 120.5, used: 20.25 },
      video: { total: 0, used: 0 },
      lipsync_free_minutes: 0,
    });
    const st = await ok(h, ed, 'GET', `/api/space/${s.id}/settings`);
    expect(st.kind).toBe('space');
    expect(st.scope_settings.available_features.spaces).toMatchObject({ enabled: true, metadata: { user_limit: 5 } });
    expect(st.scope_settings.available_features.glossary.enabled).toBe(true);
    // A trial owner's space: no Teamspace members, no glossary.
    const t = await makeUser(h, email('cred-trial'));
    const ts = await ok(h, t, 'GET', `/api/space/${t.defaultSpaceId}/settings`);
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

  const endpoints = (id: string, inviteId: string, memberId: string): [string, string, unknown?][] => [
    ['GET', `/api/space/${id}`],
    ['PATCH', `/api/space/${id}`, { name: 'Mine now' }],
    ['DELETE', `/api/space/${id}`],
    ['GET', `/api/space/${id}/credits`],
    ['GET', `/api/space/${id}/settings`],
    ['GET', `/api/space/${id}/leave`],
    ['POST', `/api/space/${id}/invite`, { emails: ['intruder@example.com'] }],
    ['DELETE', `/api/space/${id}/invite/remove?invite_id=${inviteId}`],
    ['DELETE', `/api/space/${id}/members/remove?member_id=${memberId}`],
  ];

  it('a member of A gets "You have no access to this resource" for B through every endpoint', async () => {
    for (const [m, p, body] of endpoints(spaceB.id, spaceB.invites[0].id, b.id)) {
      const r = await call(h, a, m, p, body);
      expect(r, `${m} ${p}`).toEqual({ status: 403, json: { detail: TEXT.noAccess } });
    }
    const after = await ok(h, b, 'GET', `/api/space/${spaceB.id}`);
    expect(after).toMatchObject({ name: 'B space', invites: [{ id: spaceB.invites[0].id }] });
    expect(after.members).toHaveLength(1);
    expect((await ok(h, a, 'GET', '/api/space/list')).map((s: { id: string }) => s.id)).not.toContain(spaceB.id);
  });

  it('unknown and malformed ids answer the same', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid', "1'; DROP TABLE spaces; --"]) {
      for (const [m, p, body] of endpoints(encodeURIComponent(id), '00000000-0000-4000-8000-000000000000', a.id)) {
        const r = await call(h, a, m, p, body);
        expect(r, `${m} ${p}`).toEqual({ status: 403, json: { detail: TEXT.noAccess } });
      }
    }
  });

  it('superusers may enter any space, but owner actions stay with the owner', async () => {
    const su = await makeUser(h, email('root'), { superuser: true });
    expect((await ok(h, su, 'GET', `/api/space/${spaceB.id}`)).name).toBe('B space');
    expect((await call(h, su, 'GET', `/api/space/${spaceB.id}/credits`)).status).toBe(200);
    expect(await call(h, su, 'PATCH', `/api/space/${spaceB.id}`, { name: 'x' })).toEqual({ status: 403, json: { detail: 'Only the owner can do this' } });
    expect(await call(h, su, 'GET', `/api/space/${spaceB.id}/leave`)).toEqual({ status: 400, json: { detail: TEXTS.notAMember } });
  });

  it('a non-active space is disabled for non-owners', async () => {
    const o = await makeUser(h, email('inactive-o'));
    await grantPlan(h, o.id, 'business');
    const ed = await makeUser(h, email('inactive-ed'));
    const s = await createSpace(h, o, 'Frozen', 'ocean', [ed.email]);
    await h.deps.db.query('UPDATE spaces SET is_active = false WHERE id = $1', [s.id]);
    const r = await call(h, ed, 'GET', `/api/space/${s.id}`);
    expect(r.status).toBe(403);
    expect(r.json.detail.startsWith(TEXT.noAccess)).toBe(true);
    expect((await ok(h, o, 'GET', `/api/space/${s.id}`)).is_active).toBe(false);
    // Still listed for the editor, marked inactive, so the switcher can show it disabled.
    const listed = (await ok(h, ed, 'GET', '/api/space/list')).find((x: { id: string }) => x.id === s.id);
    expect(listed.is_active).toBe(false);
  });
});
