-- Readable subtitles (issue 29): the Teamspace's limits for the subtitles of its dubs (SRT, VTT, burned), as
-- {max_line_chars, max_lines, target_cps, max_cps, min_duration_sec, max_duration_sec}; NULL: the common guidelines
-- (42 characters per line, 2 lines, 17 characters per second, 20 at most, 0.83 s to 7 s per cue).
ALTER TABLE spaces ADD COLUMN IF NOT EXISTS subtitle_limits jsonb;
