// The in-memory job queue of the embedded default, for any payload: N jobs at a time, no job id twice (a job whose
// id is waiting or running is not added again). Jobs may belong to groups (the pipeline's: Teamspaces) with a limit
// of jobs running at once each: the next job comes from the eligible group (under its limit) with the fewest running
// jobs, the least recently served first among equals, FIFO inside a group. Without groups it is a plain FIFO. A
// processor that throws a job's `defer` error puts the job back (at the head of its group) after the delay it names.
// The pipeline's InProcessQueue and the webhook deliveries' queue both run on it.
export interface GroupOptions {
  /** The job's group ('' when not given). */
  group?: string;
  /** Jobs of the group running at once (null or absent: no limit but the queue's concurrency). */
  limit?: number | null;
}

interface Group<T> {
  waiting: T[];
  active: number;
  limit: number | null;
  /** Its jobs waiting for a retry (deferred). */
  deferred: number;
  /** Sequence number of the last time a job of this group was started (0: never). */
  servedAt: number;
}

export class MemoryQueue<T> {
  private readonly groups = new Map<string, Group<T>>();
  private readonly ids = new Set<string>();
  private waitingCount = 0;
  private active = 0;
  private deferred = 0;
  private served = 0;
  private processor: ((job: T) => Promise<void>) | null = null;
  private concurrency = 1;
  private closed = false;
  private readonly running = new Set<Promise<void>>();
  private readonly timers = new Map<NodeJS.Timeout, T>();
  private idleWaiters: Array<() => void> = [];

  constructor(
    private readonly idOf: (job: T) => string,
    private readonly onError: (e: unknown, job: T) => void = () => {},
    /** A processor's error meaning "try this job again in N ms" (the pipeline's DeferJob), else null. */
    private readonly deferOf: (e: unknown) => number | null = () => null,
  ) {}

  push(job: T, o: GroupOptions = {}): void {
    if (this.closed) return;
    const id = this.idOf(job);
    if (this.ids.has(id)) return;
    this.ids.add(id);
    const name = o.group ?? '';
    const g = this.group(name);
    if (o.limit !== undefined) g.limit = o.limit;
    g.waiting.push(job);
    this.waitingCount++;
    this.pump();
  }

  start(processor: (job: T) => Promise<void>, concurrency: number): void {
    this.processor = processor;
    this.concurrency = Math.max(1, concurrency);
    this.pump();
  }

  private group(name: string): Group<T> {
    let g = this.groups.get(name);
    if (!g) {
      g = { waiting: [], active: 0, limit: null, deferred: 0, servedAt: 0 };
      this.groups.set(name, g);
    }
    return g;
  }

  /** The eligible group with the fewest running jobs, the least recently served among equals. */
  private next(): string | null {
    let best: Group<T> | null = null;
    let bestName: string | null = null;
    for (const [name, g] of this.groups) {
      if (g.waiting.length === 0 || (g.limit !== null && g.active >= g.limit)) continue;
      if (!best || g.active < best.active || (g.active === best.active && g.servedAt < best.servedAt)) {
        best = g;
        bestName = name;
      }
    }
    return bestName;
  }

  private pump(): void {
    while (this.processor && !this.closed && this.active < this.concurrency && this.waitingCount > 0) {
      const name = this.next();
      if (name === null) return;
      const g = this.groups.get(name)!;
      const job = g.waiting.shift()!;
      this.waitingCount--;
      g.active++;
      g.servedAt = ++this.served;
      const processor = this.processor;
      this.active++;
      const id = this.idOf(job);
      const run = async (): Promise<void> => {
        let retryIn: number | null = null;
        try {
          await processor(job);
        } catch (e) {
          retryIn = this.deferOf(e);
          if (retryIn === null) this.onError(e, job);
        } finally {
          this.active--;
          g.active--;
          this.running.delete(p);
          if (retryIn !== null && !this.closed) this.later(job, g, retryIn);
          else this.forget(id, name, g);
          this.checkIdle();
          this.pump();
        }
      };
      const p: Promise<void> = Promise.resolve().then(run);
      this.running.add(p);
    }
  }

  /** A deferred job goes back to the head of its group after `ms` (its id stays held meanwhile). */
  private later(job: T, g: Group<T>, ms: number): void {
    this.deferred++;
    g.deferred++;
    const t = setTimeout(() => {
      this.timers.delete(t);
      this.deferred--;
      g.deferred--;
      if (this.closed) return;
      g.waiting.unshift(job);
      this.waitingCount++;
      this.pump();
    }, ms);
    t.unref();
    this.timers.set(t, job);
  }

  /** A job done: its id is free again, and a group with nothing left is dropped (its limit is given again on push). */
  private forget(id: string, name: string, g: Group<T>): void {
    this.ids.delete(id);
    if (g.active === 0 && g.waiting.length === 0 && g.deferred === 0 && this.groups.get(name) === g) this.groups.delete(name);
  }

  private checkIdle(): void {
    if (this.active === 0 && this.waitingCount === 0 && this.deferred === 0) {
      const w = this.idleWaiters;
      this.idleWaiters = [];
      w.forEach((f) => f());
    }
  }

  /** Resolves when nothing is waiting, deferred or running. */
  idle(): Promise<void> {
    if (this.active === 0 && this.waitingCount === 0 && this.deferred === 0) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  /** Whether a job whose id starts with `prefix` is waiting, deferred or running. */
  holds(prefix: string): boolean {
    for (const id of this.ids) if (id.startsWith(prefix)) return true;
    return false;
  }

  counts(): { waiting: number; active: number } {
    return { waiting: this.waitingCount + this.deferred, active: this.active };
  }

  /** Running jobs per group (tests, diagnostics). */
  activeByGroup(): Record<string, number> {
    return Object.fromEntries([...this.groups].map(([k, g]) => [k, g.active]));
  }

  /** Takes no more jobs and drops the waiting ones; waits for running ones unless `force`. */
  async close(opts: { force?: boolean } = {}): Promise<void> {
    this.closed = true;
    for (const [t, j] of this.timers) {
      clearTimeout(t);
      this.ids.delete(this.idOf(j));
    }
    this.timers.clear();
    this.deferred = 0;
    for (const g of this.groups.values()) {
      for (const j of g.waiting) this.ids.delete(this.idOf(j));
      g.waiting = [];
    }
    this.waitingCount = 0;
    if (!opts.force) await Promise.allSettled([...this.running]);
  }
}
