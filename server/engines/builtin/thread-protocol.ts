// What the parent thread (./threads.ts) and the engine threads (./thread-tasks.ts) say to each other: the task
// names and the messages a thread posts. Kept apart from both so neither imports the other.

/** The tasks an engine thread runs, by name (thread-tasks.ts holds one function per name). */
export type ThreadTaskName = 'vad' | 'diarize' | 'diarizeFeatures' | 'diarizeParts' | 'speechSample' | 'measureVoice' | 'separate';

/** Messages to the parent thread. */
export type ThreadMessage =
  | { id: number; type: 'progress'; fraction: number }
  | { id: number; type: 'result'; value: unknown }
  | { id: number; type: 'error'; name: string; message: string; code?: string; stack?: string };
