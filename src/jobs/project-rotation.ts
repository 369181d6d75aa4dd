/**
 * Claims of one project at a time, for Citus (docs/citus.md). Citus
 * locks rows only in a statement that names one project, so a claim of due rows across projects
 * (one FOR UPDATE SKIP LOCKED over all of them, as on PostgreSQL) becomes a lock-free read of the
 * projects with due rows, oldest first, and then one claim per project.
 *
 * A rotation serves the projects of one read in turn, each once, to the lanes that claim through
 * it (a lane's claim names the project it was given, so concurrent lanes work on different
 * projects and never wait on each other's rows). When a read's projects are used up, the next read
 * comes; it waits for the claims still running, and is not made when the whole last round came
 * back empty (its rows were taken meanwhile by another worker), so a run always ends.
 */
export class ProjectRotation {
  private queue: string[] = [];
  private readonly running = new Set<Promise<unknown>>();
  /** Whether the current round claimed anything (true before the first read). */
  private found = true;
  private reading: Promise<boolean> | undefined;

  /** `readDue`: the projects with due rows, the project of the oldest first. */
  constructor(private readonly readDue: () => Promise<string[]>) {}

  /** The rows `claimOf` claims in the next project in turn that has any; [] when nothing is due. */
  async claim<T>(claimOf: (projectId: string) => Promise<T[]>): Promise<T[]> {
    for (;;) {
      const project = this.queue.shift();
      if (project === undefined) {
        if (!(await this.read())) return [];
        continue;
      }
      const claim = claimOf(project);
      this.running.add(claim);
      try {
        const rows = await claim;
        if (rows.length > 0) {
          this.found = true;
          return rows;
        }
      } finally {
        this.running.delete(claim);
      }
    }
  }

  /** A new round, read once for every lane that ran out; false when none is due. */
  private read(): Promise<boolean> {
    this.reading ??= (async () => {
      await Promise.allSettled([...this.running]);
      if (!this.found) return false;
      this.found = false;
      this.queue = await this.readDue();
      return this.queue.length > 0;
    })().finally(() => (this.reading = undefined));
    return this.reading;
  }
}
