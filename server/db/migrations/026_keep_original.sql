-- Timing a user can see (issue 29): a segment kept in the original audio is not dubbed; the dub plays the original
-- speech and background over its span (the voiceover skips it, the mix takes the source audio there).
ALTER TABLE segments ADD COLUMN IF NOT EXISTS keep_original boolean NOT NULL DEFAULT false;
