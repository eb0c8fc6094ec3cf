// The database's change clock: what lets a process keep the results of its hottest reads (a project's access facts
// and transcript version, a list page's version: server/cache/kept-reads.ts) without asking the database each time,
// and still never answer from a result older than a change it could know of.
// - `epoch` moves on after every write this process makes (a statement that is not a plain read, a transaction,
//   an exec), when it has finished: a read kept under an earlier epoch is not used again.
// - Writes by other processes (scale-out: the other API instances, the workers, a script) arrive as change notices:
//   migration 015 has every table those reads depend on NOTIFY `ds_changes` when a statement writes it, delivered
//   at commit. A PostgreSQL database follows them on a connection of its own (LISTEN); each notice moves the
//   epoch on. While that connection is not up (not yet, lost, reconnecting), `live` is false and nothing kept may
//   be used: a change could be missed. PGlite is embedded: no other process can write to it, so it is always live.
export const CHANGES_CHANNEL = 'ds_changes';

/**
 * Connects a follower of the change notices: resolves once it listens, calls `notice` for each notice and `lost`
 * (once) when the connection ends; the returned function closes it.
 */
export type ChangeListener = (notice: (payload: string) => void, lost: (e?: Error) => void) => Promise<() => Promise<void>>;

/** Sends a notice on the changes channel (through the database, as a writer's trigger would). */
export type ChangeNotifier = (payload: string) => Promise<void>;

const SYNC_PREFIX = 'sync:';
const SYNC_TIMEOUT_MS = 10_000;

let syncs = 0;

/** Delay before following again after a lost connection: doubles from the first to the last. */
const RETRY_MS = [250, 500, 1000, 2000, 5000];

export class ChangeClock {
  private n = 0;
  private connected: boolean;
  private started = false;
  private closed = false;
  private stop: (() => Promise<void>) | null = null;
  private retry: NodeJS.Timeout | null = null;
  private failures = 0;

  private readonly waiters = new Map<string, () => void>();
  private onConnected: Array<() => void> = [];

  /** `listener` null: nothing else writes to this database (embedded). */
  constructor(
    private readonly listener: ChangeListener | null,
    private readonly notifier: ChangeNotifier | null = null,
  ) {
    this.connected = listener === null;
  }

  /**
   * Resolves once this process has heard every change committed before the call (a notice of its own, sent now,
   * has come back: PostgreSQL delivers a listener's notices in commit order). At once when embedded.
   */
  async caughtUp(): Promise<void> {
    if (this.listener === null || !this.notifier) return;
    if (!this.live) await new Promise<void>((resolve) => this.onConnected.push(resolve));
    const token = `${SYNC_PREFIX}${process.pid}.${++syncs}`;
    const heard = new Promise<void>((resolve, reject) => {
      const t = setTimeout(() => {
        this.waiters.delete(token);
        reject(new Error('the change notices did not come back in time'));
      }, SYNC_TIMEOUT_MS);
      this.waiters.set(token, () => {
        clearTimeout(t);
        resolve();
      });
    });
    await this.notifier(token);
    await heard;
  }

  private heard(payload: string): void {
    this.bump();
    if (payload.startsWith(SYNC_PREFIX)) {
      const w = this.waiters.get(payload);
      this.waiters.delete(payload);
      w?.();
    }
  }

  /**
   * For the operator (/metrics): embedded (nothing to follow), idle (no kept read asked yet: workers), following, or
   * lost (reconnecting: nothing is kept meanwhile). Asking does not start following.
   */
  get state(): 'embedded' | 'idle' | 'following' | 'lost' {
    if (this.listener === null) return 'embedded';
    if (!this.started) return 'idle';
    return this.connected ? 'following' : 'lost';
  }

  /** Moves on at every change this process knows of. */
  get epoch(): number {
    return this.n;
  }

  /** May a result read at the current epoch be kept and used again? Starts following the notices on first ask. */
  get live(): boolean {
    if (!this.started) this.follow();
    return this.connected;
  }

  /** A change happened (a write of this process finished, or a notice came). */
  bump(): void {
    this.n++;
  }

  /** Starts following the change notices (once); `live` turns true when the listener is up. */
  private follow(): void {
    if (this.started || this.listener === null || this.closed) return;
    this.started = true;
    void this.connect();
  }

  private async connect(): Promise<void> {
    this.retry = null;
    if (this.closed || !this.listener) return;
    let lostAlready = false;
    const lost = () => {
      if (lostAlready) return;
      lostAlready = true;
      this.connected = false;
      this.bump();
      this.stop = null;
      this.again();
    };
    try {
      const stop = await this.listener((payload) => this.heard(payload), lost);
      if (this.closed || lostAlready) {
        await stop().catch(() => {});
        return;
      }
      this.stop = stop;
      this.failures = 0;
      // Whatever was read before the listener was up may predate a change it did not hear of.
      this.bump();
      this.connected = true;
      const waiting = this.onConnected;
      this.onConnected = [];
      for (const w of waiting) w();
    } catch {
      lost();
    }
  }

  private again(): void {
    if (this.closed || this.retry) return;
    const ms = RETRY_MS[Math.min(this.failures++, RETRY_MS.length - 1)]!;
    this.retry = setTimeout(() => void this.connect(), ms);
    this.retry.unref();
  }

  /** Stops following (the database is closing): nothing is live any more. */
  async close(): Promise<void> {
    this.closed = true;
    this.connected = false;
    this.bump();
    const waiting = this.onConnected; // they go on, and fail on the closed database
    this.onConnected = [];
    for (const w of waiting) w();
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
    const stop = this.stop;
    this.stop = null;
    if (stop) await stop().catch(() => {});
  }
}

/**
 * Does a statement possibly write? Anything but a plain SELECT or WITH query naming no writing keyword counts
 * (a locking read, FOR UPDATE, counts too: the price of a wrong "no" would be a stale answer, of a wrong "yes" a
 * read again).
 */
export function mayWrite(sql: string): boolean {
  return !/^\s*(select|with)\b/i.test(sql) || /\b(insert|update|delete|merge|truncate|copy|call)\b/i.test(sql);
}
