-- Honest recognition confidence (issue 33): how sure the recognizer was of each segment, 0..1 (the duration-weighted
-- calibrated confidence of its words, or an OpenAI-compatible server's avg_logprob and no_speech_prob); NULL when
-- the engine gave none or the text was uploaded or typed. The words' own confidences stay in segments.words.
ALTER TABLE segments ADD COLUMN IF NOT EXISTS asr_confidence double precision;
