// The timeline's fixed sizes (pixels) and limits, shared by its hooks and parts.
export const GUTTER_PX = 112;
export const RULER_H = 20;
export const WAVE_H = 40;
export const LANE_H = 26;
/** More blocks than this in view: the lanes are drawn instead of mounted. */
export const MAX_DOM_BLOCKS = 400;
/** Lanes shown before the lane area scrolls. */
export const MAX_LANES_SHOWN = 4;
