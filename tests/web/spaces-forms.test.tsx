// Teamspaces screens: the invite form, the Create Teamspace modal, role labels, the Teamspace dialog,
// the Welcome-to-Teamspace modal and the switcher, with their exact texts.
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TEXT } from '../../contract/errors';
import { ApiError } from '../../src/lib/http';
import { useNoAccessRefetch } from '../../src/features/spaces/api';
import { CreateTeamspaceModal } from '../../src/features/spaces/components/CreateTeamspaceModal';
import { InviteForm } from '../../src/features/spaces/components/InviteForm';
import { RoleLabel } from '../../src/features/spaces/components/RoleLabel';
import { TeamspaceDialog } from '../../src/features/spaces/components/TeamspaceDialog';
import { TeamspaceSwitcher } from '../../src/features/spaces/components/TeamspaceSwitcher';
import { WelcomeTeamspaceModal } from '../../src/features/spaces/components/WelcomeTeamspaceModal';
import { useSpaces } from '../../src/lib/api/use-spaces';
import { useCurrentUser } from '../../src/lib/api/use-current-user';
import { api } from '../../src/lib/http';
import { EDITOR_ID, OWNER_ID, http, json, limits, recordRequests, renderUi, server, space, spaceSettings, user } from './spaces-render';

afterEach(() => {
  server.events.removeAllListeners();
});

/** Disabled as the user meets it: the control itself or an aria-disabled wrapper. */
const disabled = (el: Element) => (el as HTMLButtonElement).disabled === true || el.getAttribute('aria-disabled') === 'true';
const emailInput = () => screen.getByPlaceholderText('Add e-mail of a teammate') as HTMLInputElement;
/** The Invite button (its accessible name changes while Polaris shows the loading spinner). */
const inviteButton = () => screen.getByRole('form', { name: 'Invite member' }).querySelector('button[type="submit"]') as HTMLButtonElement;
const tab = (name: string) => screen.getByRole('tab', { name });

describe('InviteForm', () => {
  it('disables Invite while the input is empty', async () => {
    renderUi(<InviteForm taken={[]} onInvite={() => {}} />);
    expect(disabled(inviteButton())).toBe(true);
    await userEvent.type(emailInput(), 'a');
    expect(disabled(inviteButton())).toBe(false);
  });

  it("shows 'Incorrect email', clears it when emptied, and never calls onInvite", async () => {
    const onInvite = vi.fn();
    renderUi(<InviteForm taken={[]} onInvite={onInvite} />);
    await userEvent.type(emailInput(), 'not-an-email');
    await userEvent.click(inviteButton());
    expect(screen.getByText(TEXT.incorrectEmail)).toBeTruthy();
    await userEvent.clear(emailInput());
    expect(screen.queryByText(TEXT.incorrectEmail)).toBeNull();
    expect(onInvite).not.toHaveBeenCalled();
  });

  it("shows 'This email is already added' for a member, ignoring case", async () => {
    const onInvite = vi.fn();
    renderUi(<InviteForm taken={['owner@example.com']} onInvite={onInvite} />);
    await userEvent.type(emailInput(), 'Owner@Example.com{Enter}');
    expect(screen.getByText(TEXT.emailAlreadyAdded)).toBeTruthy();
    expect(onInvite).not.toHaveBeenCalled();
  });

  it('invites a valid e-mail and clears the input after success', async () => {
    const onInvite = vi.fn(async () => {});
    renderUi(<InviteForm taken={[]} onInvite={onInvite} />);
    await userEvent.type(emailInput(), '  New@Example.com ');
    await userEvent.click(inviteButton());
    expect(onInvite).toHaveBeenCalledWith('new@example.com');
    await waitFor(() => expect(emailInput().value).toBe(''));
  });

  it('is disabled while loading and shows a server error under the input', async () => {
    let reject!: (e: unknown) => void;
    const onInvite = vi.fn(() => new Promise((_r, rej) => (reject = rej)));
    renderUi(<InviteForm taken={[]} onInvite={onInvite} />);
    await userEvent.type(emailInput(), 'x@example.com');
    await userEvent.click(inviteButton());
    expect(disabled(inviteButton())).toBe(true);
    await act(async () => reject(new ApiError({ status: 409, message: TEXT.emailAlreadyAdded, detail: TEXT.emailAlreadyAdded })));
    expect(await screen.findByText(TEXT.emailAlreadyAdded)).toBeTruthy();
    expect(emailInput().value).toBe('x@example.com');
  });

  it('is disabled at the limit, with the reason', async () => {
    renderUi(<InviteForm taken={[]} onInvite={() => {}} disabled note="Member limit reached (3). Upgrade your plan to invite more members." />);
    expect(disabled(emailInput())).toBe(true);
    expect(disabled(inviteButton())).toBe(true);
    expect(screen.getByText('Member limit reached (3). Upgrade your plan to invite more members.')).toBeTruthy();
  });
});

describe('RoleLabel', () => {
  it("shows 'Owner' with the member count, 'Editor' and '(you)'", () => {
    renderUi(
      <>
        <div data-testid="o"><RoleLabel role="owner" memberCount={3} isYou /></div>
        <div data-testid="e"><RoleLabel role="editor" /></div>
      </>,
    );
    expect(screen.getByTestId('o').textContent).toBe('Owner · 3 members (you)');
    expect(screen.getByTestId('e').textContent).toBe('Editor');
  });
});

function mockCreateApi(over: { limits?: Record<string, unknown>; create?: () => Response } = {}) {
  server.use(
    http.get('*/api/users/current', () => json(user())),
    http.get('*/api/space/limits', () => json(limits({ can_create: true, owned_spaces: 1, ...over.limits }))),
    http.get('*/api/space/list', () => json([])),
    http.post('*/api/space/create', over.create ?? (() => json(space({ id: 's-new', name: 'Marketing' }), 201))),
  );
}

describe('Create Teamspace modal', () => {
  it("requires a name ('Field is required') and defaults to the palette's second colour", async () => {
    mockCreateApi();
    const seen = recordRequests();
    renderUi(<CreateTeamspaceModal open onClose={() => {}} />);
    expect((await screen.findByRole('radio', { name: 'ocean' })).getAttribute('aria-checked')).toBe('true');
    expect((screen.getByRole('radio', { name: 'midnight' })).getAttribute('aria-checked')).toBe('false');
    await userEvent.click(screen.getByRole('button', { name: 'Create' }));
    expect(screen.getByText(TEXT.fieldRequired)).toBeTruthy();
    expect(seen.filter((r) => r.method === 'POST')).toEqual([]);
  });

  it('holds invited members locally as editors and sends them with the create', async () => {
    mockCreateApi();
    const seen = recordRequests();
    const onCreated = vi.fn();
    const onClose = vi.fn();
    renderUi(<CreateTeamspaceModal open onClose={onClose} onCreated={onCreated} />);
    await screen.findByText('owner@example.com');
    await userEvent.type(screen.getByLabelText('Teamspace name'), 'Marketing');
    await userEvent.click(screen.getByRole('radio', { name: 'berry' }));
    await userEvent.type(emailInput(), 'Mate@Example.com');
    await userEvent.click(inviteButton());
    const members = screen.getAllByTestId('space-member');
    expect(members.map((m) => m.textContent)).toEqual(['owner@example.comOwner · 2 members (you)', 'mate@example.comEditorRemove']);
    expect(seen.filter((r) => r.method !== 'GET')).toEqual([]);
    // Already in the local list.
    await userEvent.type(emailInput(), 'mate@example.com{Enter}');
    expect(screen.getByText(TEXT.emailAlreadyAdded)).toBeTruthy();
    await userEvent.clear(emailInput());
    await userEvent.click(screen.getByRole('button', { name: 'Create' }));
    await waitFor(() => expect(onCreated).toHaveBeenCalled());
    await waitFor(() =>
      expect(seen.find((r) => r.method === 'POST')?.body).toEqual({ data: { name: 'Marketing', color: 'berry' }, emails: ['mate@example.com'] }),
    );
    expect(onCreated.mock.calls[0][0]).toMatchObject({ id: 's-new' });
    expect(onClose).toHaveBeenCalled();
  });

  it('removes a local member before submit', async () => {
    mockCreateApi();
    renderUi(<CreateTeamspaceModal open onClose={() => {}} />);
    await screen.findByText('owner@example.com');
    await userEvent.type(emailInput(), 'gone@example.com{Enter}');
    await userEvent.click(screen.getByRole('button', { name: 'Remove gone@example.com' }));
    expect(screen.queryByText('gone@example.com')).toBeNull();
  });

  it('asks to discard on the first close with input, with the exact texts', async () => {
    mockCreateApi();
    const onClose = vi.fn();
    renderUi(<CreateTeamspaceModal open onClose={onClose} />);
    await userEvent.type(await screen.findByLabelText('Teamspace name'), 'Draft');
    await userEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    const dialog = await screen.findByRole('dialog', { name: TEXT.discardTitle });
    expect(within(dialog).getByText(TEXT.discardSubtitle)).toBeTruthy();
    await userEvent.click(within(dialog).getByRole('button', { name: TEXT.discardCancel }));
    expect(onClose).not.toHaveBeenCalled();
    expect((screen.getByLabelText('Teamspace name') as HTMLInputElement).value).toBe('Draft');
    await userEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    await userEvent.click(within(await screen.findByRole('dialog', { name: TEXT.discardTitle })).getByRole('button', { name: TEXT.discardConfirm }));
    expect(onClose).toHaveBeenCalledTimes(1);
  });

  it('closes at once without input', async () => {
    mockCreateApi();
    const onClose = vi.fn();
    renderUi(<CreateTeamspaceModal open onClose={onClose} />);
    await screen.findByLabelText('Teamspace name');
    await userEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(onClose).toHaveBeenCalledTimes(1);
    expect(screen.queryByText(TEXT.discardTitle)).toBeNull();
  });

  it('shows the server refusal and stays open', async () => {
    const detail = 'You have reached the Teamspace limit of your plan. Upgrade to the Enterprise plan for more Teamspaces';
    mockCreateApi({ create: () => json({ detail }, 403) });
    const onClose = vi.fn();
    renderUi(<CreateTeamspaceModal open onClose={onClose} />);
    await userEvent.type(await screen.findByLabelText('Teamspace name'), 'Too many');
    await userEvent.click(screen.getByRole('button', { name: 'Create' }));
    expect(await screen.findByText(detail)).toBeTruthy();
    expect(onClose).not.toHaveBeenCalled();
  });

  it('stops inviting at the member limit of the plan', async () => {
    mockCreateApi({ limits: { user_limit: 3 } });
    renderUi(<CreateTeamspaceModal open onClose={() => {}} />);
    await screen.findByText('owner@example.com');
    for (const e of ['a@example.com', 'b@example.com']) await userEvent.type(emailInput(), `${e}{Enter}`);
    await waitFor(() => expect(disabled(emailInput())).toBe(true));
    expect(screen.getByText('Member limit reached (3). Upgrade your plan to invite more members.')).toBeTruthy();
  });
});

function mockSpaceApi(s = space(), over: { me?: ReturnType<typeof user>; limits?: Record<string, unknown>; settings?: unknown } = {}) {
  let current = s;
  server.use(
    http.get('*/api/users/current', () => json(over.me ?? user())),
    http.get('*/api/space/limits', () => json(limits(over.limits))),
    http.get('*/api/space/list', () => json([current])),
    http.get(`*/api/space/${s.id}`, () => json(current)),
    http.get(`*/api/space/${s.id}/credits`, () => json(current.credits)),
    http.get(`*/api/space/${s.id}/settings`, () => json(over.settings ?? spaceSettings())),
    http.patch(`*/api/space/${s.id}`, async ({ request }) => {
      current = { ...current, ...((await request.json()) as object) };
      return json(current);
    }),
    http.post(`*/api/space/${s.id}/invite`, async ({ request }) => {
      const { emails } = (await request.json()) as { emails: string[] };
      current = { ...current, invites: [...current.invites, ...emails.map((e, i) => ({ id: `new-${i}`, email: e }))] };
      return json(current);
    }),
    http.delete(`*/api/space/${s.id}/members/remove`, ({ request }) => {
      const id = new URL(request.url).searchParams.get('member_id');
      current = { ...current, members: current.members.filter((m) => m.user_id !== id) };
      return json(current);
    }),
    http.delete(`*/api/space/${s.id}/invite/remove`, ({ request }) => {
      const id = new URL(request.url).searchParams.get('invite_id');
      current = { ...current, invites: current.invites.filter((m) => m.id !== id) };
      return json(current);
    }),
    http.delete(`*/api/space/${s.id}`, () => json({ default_space_id: 's-default' })),
    http.get(`*/api/space/${s.id}/leave`, () => json({ default_space_id: 's-editor-default' })),
  );
}

describe('Subtitle limits (Teamspace dialog)', () => {
  const field = (name: string) => screen.getByLabelText(name) as HTMLInputElement;
  it('owner: sees the limits in words, changes one and saves them; a value out of bounds is refused before any call', async () => {
    mockSpaceApi();
    const seen = recordRequests();
    renderUi(<TeamspaceDialog open spaceId="s-team" onClose={() => {}} />);
    await screen.findByLabelText('Teamspace name');
    expect(screen.getByText(/42 characters × 2 lines, 17 characters per second \(at most 20\), 0\.83–7 s on screen \(common subtitle guidelines\)/)).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: 'Change' }));
    await userEvent.clear(field('Characters per line, at most'));
    await userEvent.type(field('Characters per line, at most'), '100');
    await userEvent.click(screen.getByRole('button', { name: 'Save limits' }));
    expect(await screen.findByText('Between 16 and 80')).toBeTruthy();
    expect(seen.some((r) => r.method === 'PATCH')).toBe(false);
    await userEvent.clear(field('Characters per line, at most'));
    await userEvent.type(field('Characters per line, at most'), '37');
    await userEvent.clear(field('Reading speed, hard limit'));
    await userEvent.type(field('Reading speed, hard limit'), '15');
    await userEvent.click(screen.getByRole('button', { name: 'Save limits' }));
    expect(await screen.findByText('At least the reading speed to aim for')).toBeTruthy();
    await userEvent.clear(field('Reading speed, hard limit'));
    await userEvent.type(field('Reading speed, hard limit'), '21');
    await userEvent.click(screen.getByRole('button', { name: 'Save limits' }));
    await waitFor(() =>
      expect(seen.find((r) => r.method === 'PATCH')?.body).toEqual({
        subtitle_limits: { max_line_chars: 37, max_lines: 2, target_cps: 17, max_cps: 21, min_duration_sec: 0.83, max_duration_sec: 7 },
      }),
    );
    expect(await screen.findByText(/37 characters × 2 lines, 17 characters per second \(at most 21\)/)).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: 'Use the defaults' }));
    await waitFor(() => expect(seen.filter((r) => r.method === 'PATCH').at(-1)?.body).toEqual({ subtitle_limits: null }));
  });

  it('editor: sees them, cannot change them', async () => {
    mockSpaceApi(space({ subtitle_limits: { max_line_chars: 32, max_lines: 1, target_cps: 15, max_cps: 18, min_duration_sec: 1, max_duration_sec: 6 } }), {
      me: user({ id: EDITOR_ID, email: 'editor@example.com' }),
    });
    renderUi(<TeamspaceDialog open spaceId="s-team" onClose={() => {}} />);
    expect(await screen.findByText(/32 characters × 1 line, 15 characters per second \(at most 18\), 1–6 s on screen$/)).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: 'Details' }));
    expect(field('Characters per line, at most').disabled).toBe(true);
    expect(screen.queryByRole('button', { name: 'Save limits' })).toBeNull();
    expect(screen.getByText('Only the Teamspace\'s owners change these.')).toBeTruthy();
  });
});

describe('Teamspace dialog', () => {
  it('owner: Settings and Usage tabs, minutes used/total and Manage subscription', async () => {
    mockSpaceApi();
    const onManage = vi.fn();
    renderUi(<TeamspaceDialog open spaceId="s-team" onClose={() => {}} onManageSubscription={onManage} />);
    expect((await screen.findByLabelText('Teamspace name') as HTMLInputElement).value).toBe('Team');
    expect(tab('Settings').getAttribute('aria-selected')).toBe('true');
    await userEvent.click(tab('Usage'));
    expect(await screen.findByText('12 / 100 minutes used')).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: 'Manage subscription' }));
    expect(onManage).toHaveBeenCalled();
  });

  it('owner: members owner first with labels; remove-member confirmation removes', async () => {
    mockSpaceApi();
    const seen = recordRequests();
    renderUi(<TeamspaceDialog open spaceId="s-team" onClose={() => {}} />);
    await screen.findByLabelText('Teamspace name');
    const rows = screen.getAllByTestId('space-member').map((r) => r.textContent);
    expect(rows).toEqual(['owner@example.comOwner · 2 members (you)', 'editor@example.comEditorRemove']);
    expect(screen.getByTestId('space-invite').textContent).toContain('pending@example.com');
    await userEvent.click(screen.getByRole('button', { name: 'Remove editor@example.com' }));
    const confirm = await screen.findByRole('dialog', { name: 'Remove member?' });
    expect(within(confirm).getByText('editor@example.com will lose access to this Teamspace and its projects.')).toBeTruthy();
    await userEvent.click(within(confirm).getByRole('button', { name: 'Remove' }));
    await waitFor(() => expect(screen.queryByText('editor@example.com')).toBeNull());
    expect(seen.find((r) => r.method === 'DELETE')).toMatchObject({ path: '/api/space/s-team/members/remove', search: `?member_id=${EDITOR_ID}` });
  });

  it('owner: invites through the form and the new invite appears', async () => {
    mockSpaceApi();
    renderUi(<TeamspaceDialog open spaceId="s-team" onClose={() => {}} />);
    await screen.findByLabelText('Teamspace name');
    await userEvent.type(emailInput(), 'pending@example.com{Enter}');
    expect(screen.getByText(TEXT.emailAlreadyAdded)).toBeTruthy();
    await userEvent.clear(emailInput());
    await userEvent.type(emailInput(), 'fresh@example.com{Enter}');
    expect(await screen.findByText('fresh@example.com')).toBeTruthy();
    expect(emailInput().value).toBe('');
  });

  it('owner: invite disabled at the member limit', async () => {
    mockSpaceApi(space(), { settings: spaceSettings(3) });
    renderUi(<TeamspaceDialog open spaceId="s-team" onClose={() => {}} />);
    await screen.findByLabelText('Teamspace name');
    await waitFor(() => expect(disabled(emailInput())).toBe(true));
    expect(screen.getByText('Member limit reached (3). Upgrade your plan to invite more members.')).toBeTruthy();
  });

  it('owner: rename, then discard confirmation for unsaved changes', async () => {
    mockSpaceApi();
    const seen = recordRequests();
    const onClose = vi.fn();
    renderUi(<TeamspaceDialog open spaceId="s-team" onClose={onClose} />);
    const input = await screen.findByLabelText('Teamspace name');
    await userEvent.clear(input);
    expect(screen.getByText(TEXT.fieldRequired)).toBeTruthy();
    await userEvent.type(input, 'Renamed');
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(seen.find((r) => r.method === 'PATCH')?.body).toEqual({ name: 'Renamed', color: 'ocean' }));
    await userEvent.type(input, '!');
    await userEvent.click(screen.getAllByRole('button', { name: 'Close' }).at(-1)!);
    const d = await screen.findByRole('dialog', { name: TEXT.discardTitle });
    await userEvent.click(within(d).getByRole('button', { name: TEXT.discardConfirm }));
    expect(onClose).toHaveBeenCalledTimes(1);
  });

  it('owner: delete only when the spec allows it, with a confirmation', async () => {
    mockSpaceApi(space(), { limits: { owned_spaces: 3, spaces_limit: 2 } });
    const onDeleted = vi.fn();
    renderUi(<TeamspaceDialog open spaceId="s-team" onClose={() => {}} onDeleted={onDeleted} />);
    await userEvent.click(await screen.findByRole('button', { name: 'Delete Teamspace' }));
    const d = await screen.findByRole('dialog', { name: 'Delete Teamspace?' });
    await userEvent.click(within(d).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(onDeleted).toHaveBeenCalledWith('s-default'));
  });

  it('owner: no delete button at or below the limit, nor for the default space', async () => {
    mockSpaceApi(space(), { limits: { owned_spaces: 2, spaces_limit: 2 } });
    renderUi(<TeamspaceDialog open spaceId="s-team" onClose={() => {}} />);
    await screen.findByLabelText('Teamspace name');
    await screen.findByText('owner@example.com');
    expect(screen.queryByRole('button', { name: 'Delete Teamspace' })).toBeNull();
  });

  it('non-owner: read-only, no Usage, may leave after confirming', async () => {
    mockSpaceApi(space(), { me: user({ id: EDITOR_ID, email: 'editor@example.com' }) });
    const onLeft = vi.fn();
    renderUi(<TeamspaceDialog open spaceId="s-team" onClose={() => {}} onLeft={onLeft} />);
    const input = await screen.findByLabelText('Teamspace name');
    await waitFor(() => expect(disabled(input)).toBe(true));
    expect(screen.getByText('Only the owner can change this Teamspace.')).toBeTruthy();
    expect(screen.queryByRole('tab', { name: 'Usage' })).toBeNull();
    expect(screen.queryByPlaceholderText('Add e-mail of a teammate')).toBeNull();
    expect(screen.queryByRole('button', { name: /^Remove / })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Save' })).toBeNull();
    expect(screen.getAllByTestId('space-member')[1].textContent).toBe('editor@example.comEditor (you)');
    await userEvent.click(screen.getByRole('button', { name: 'Leave Teamspace' }));
    const d = await screen.findByRole('dialog', { name: 'Leave Teamspace?' });
    await userEvent.click(within(d).getByRole('button', { name: 'Leave' }));
    await waitFor(() => expect(onLeft).toHaveBeenCalledWith('s-editor-default'));
  });

  it('non-owner of a default space: no Leave', async () => {
    mockSpaceApi(space({ is_default: true }), { me: user({ id: EDITOR_ID, email: 'editor@example.com' }) });
    renderUi(<TeamspaceDialog open spaceId="s-team" onClose={() => {}} />);
    await screen.findByText('editor@example.com');
    expect(screen.queryByRole('button', { name: 'Leave Teamspace' })).toBeNull();
  });
});

describe('Welcome-to-Teamspace modal', () => {
  it('shows once per pending space and reports it seen', async () => {
    let me = user({ id: EDITOR_ID, email: 'editor@example.com', pending_welcome_spaces: ['s-team'] });
    server.use(
      http.get('*/api/users/current', () => json(me)),
      http.get('*/api/space/list', () => json([space()])),
      http.patch('*/api/users/current', async ({ request }) => {
        const body = (await request.json()) as { welcome_seen_space_id: string };
        me = { ...me, pending_welcome_spaces: me.pending_welcome_spaces.filter((x) => x !== body.welcome_seen_space_id) };
        return json(me);
      }),
    );
    const seen = recordRequests();
    const onOpen = vi.fn();
    renderUi(<WelcomeTeamspaceModal onOpenSpace={onOpen} />);
    const d = await screen.findByRole('dialog', { name: 'Welcome to Team!' });
    expect(within(d).getByText(/owner@example.com invited you to this Teamspace/)).toBeTruthy();
    await userEvent.click(within(d).getByRole('button', { name: 'Open Teamspace' }));
    expect(onOpen).toHaveBeenCalledWith('s-team');
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    await waitFor(() => expect(seen.find((r) => r.method === 'PATCH')?.body).toEqual({ welcome_seen_space_id: 's-team' }));
  });

  it('shows nothing without pending spaces', async () => {
    server.use(http.get('*/api/users/current', () => json(user())), http.get('*/api/space/list', () => json([space()])));
    // The modal decides from the user and the space list; this probe reads the same SWR cache, so once it shows
    // both loaded the modal has rendered with them too (no fixed wait for the fetches).
    function Loaded() {
      const { data: me } = useCurrentUser();
      const { data: spaces } = useSpaces();
      return me && spaces ? <p>user and spaces loaded</p> : null;
    }
    renderUi(
      <>
        <WelcomeTeamspaceModal />
        <Loaded />
      </>,
    );
    await screen.findByText('user and spaces loaded');
    expect(screen.queryByRole('dialog')).toBeNull();
  });
});

describe('Teamspace switcher', () => {
  const spaces = [
    space({ id: 's-default', name: 'My Teamspace', color: 'midnight', is_default: true, members: [{ user_id: OWNER_ID, email: 'owner@example.com', role: 'owner' }], invites: [] }),
    space({ id: 's-team', name: 'Team' }),
    space({ id: 's-off', name: 'Frozen', owner_id: EDITOR_ID, is_active: false }),
  ];

  it('lists the spaces, marks disabled ones, and switches', async () => {
    server.use(
      http.get('*/api/users/current', () => json(user())),
      http.get('*/api/space/list', () => json(spaces)),
      http.get('*/api/space/limits', () => json(limits({ can_create: true, owned_spaces: 2, spaces_limit: null }))),
    );
    const { loc } = renderUi(<TeamspaceSwitcher collapsed={false} />, { path: '/spaces/s-default' });
    await userEvent.click(await screen.findByRole('button', { name: 'Teamspace: My Teamspace' }));
    const menu = await screen.findByTestId('space-switcher-menu');
    expect(within(menu).getByText('Create Teamspace')).toBeTruthy();
    expect(disabled(within(menu).getByRole('menuitem', { name: /Frozen/ }))).toBe(true);
    await userEvent.click(within(menu).getByRole('menuitem', { name: /^Team/ }));
    expect(loc.history?.at(-1)).toBe('/spaces/s-team');
  });

  it('shows the upgrade banner instead of Create for plans without Teamspaces', async () => {
    server.use(
      http.get('*/api/users/current', () => json(user())),
      http.get('*/api/space/list', () => json(spaces.slice(0, 1))),
      http.get('*/api/space/limits', () => json(limits({ plan: 'creator', spaces_enabled: false, can_create: false, owned_spaces: 1, spaces_limit: 1, user_limit: 1 }))),
    );
    const { loc } = renderUi(<TeamspaceSwitcher collapsed />, { path: '/spaces/s-default' });
    await userEvent.click(await screen.findByRole('button', { name: 'Teamspace: My Teamspace' }));
    const menu = await screen.findByTestId('space-switcher-menu');
    expect(await within(menu).findByText('Upgrade your plan to create Teamspaces and invite your team.')).toBeTruthy();
    expect(within(menu).queryByText('Create Teamspace')).toBeNull();
    await userEvent.click(within(menu).getByRole('button', { name: 'Upgrade' }));
    expect(loc.history?.at(-1)).toBe('/pricing');
  });
});

describe("'You have no access to this resource'", () => {
  it('refetches the spaces list', async () => {
    let lists = 0;
    server.use(
      http.get('*/api/space/list', () => {
        lists++;
        return json([]);
      }),
      http.get('*/api/project/p1', () => json({ detail: `${TEXT.noAccess}` }, 403)),
    );
    function Probe() {
      useNoAccessRefetch();
      useSpaces();
      return null;
    }
    renderUi(<Probe />);
    await waitFor(() => expect(lists).toBe(1));
    await expect(api.get('project/p1').json()).rejects.toBeInstanceOf(ApiError);
    await waitFor(() => expect(lists).toBe(2));
  });
});
