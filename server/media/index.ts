// The media layer: the only code that runs ffmpeg, ffprobe, yt-dlp and rubberband.
export * from './errors';
export * from './run';
export * from './args';
export * from './probe';
export * from './ffmpeg';
export * from './link';
export * from './wav';
export * from './subtitles';
export * from './gate';
