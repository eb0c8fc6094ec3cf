-- Invite links (issue 34): when no e-mail goes out (no SMTP configured), the owner hands the invitee a link
-- instead. A link is single use and expires; only the SHA-256 of its token is kept. Used by a signed-in person,
-- it makes them an editor of the space and drops the pending e-mail invite it was made for.
CREATE TABLE space_invite_links (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  space_id uuid NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
  invite_id uuid REFERENCES space_invites(id) ON DELETE SET NULL,
  token_hash text NOT NULL UNIQUE,
  created_by uuid REFERENCES users(id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  used_by uuid REFERENCES users(id) ON DELETE SET NULL
);
CREATE INDEX space_invite_links_space_idx ON space_invite_links (space_id);
