-- Dictionary rules per segment (issue 29): which rule fired where, written by the translation stage for every
-- engine: [{source, target, rule: 'translate'|'do_not_translate', case_sensitive, src_at: [[start, end]...],
-- dst_at: [[start, end]...], applied}] (offsets in the source and the translation). NULL: not translated since, or
-- no dictionary. A rule with applied false is a term the engine could not apply (flagged in the quality report).
ALTER TABLE segments ADD COLUMN IF NOT EXISTS term_hits jsonb;
