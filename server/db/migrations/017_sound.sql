-- Issue 28: each speaker's measured voice profile (median pitch, range, formants, gender and how sure it is), and
-- the Teamspace's loudness target for its dubs ('source' keeps the original's loudness and range).
ALTER TABLE speakers ADD COLUMN profile jsonb;
ALTER TABLE spaces ADD COLUMN loudness_target text NOT NULL DEFAULT 'source';
