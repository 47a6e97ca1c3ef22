import type { LogEntry } from '../workers/migrate/src/engine/types.ts';

export type JobLogEntry = Pick<LogEntry, 'level' | 'message' | 'timestamp'>;

/**
 * The log of a job's Durable Object (discipline repair, import) in its SQLite storage: entries in
 * order, the newest `keep` kept.
 */
export class JobLog {
  constructor(
    private readonly sql: SqlStorage,
    private readonly keep = 1_000,
  ) {
    sql.exec(`CREATE TABLE IF NOT EXISTS log (id INTEGER PRIMARY KEY AUTOINCREMENT, level TEXT NOT NULL, message TEXT NOT NULL, timestamp TEXT NOT NULL)`);
  }

  append(level: LogEntry['level'], message: string): void {
    this.sql.exec('INSERT INTO log (level, message, timestamp) VALUES (?, ?, ?)', level, message, new Date().toISOString());
    this.sql.exec('DELETE FROM log WHERE id <= (SELECT max(id) FROM log) - ?', this.keep);
  }

  /** The newest `count` entries, oldest first. */
  recent(count: number): JobLogEntry[] {
    return this.sql
      .exec<{ level: LogEntry['level']; message: string; timestamp: string }>('SELECT level, message, timestamp FROM log ORDER BY id DESC LIMIT ?', count)
      .toArray()
      .reverse()
      .map((r) => ({ level: r.level, message: r.message, timestamp: r.timestamp }));
  }
}
