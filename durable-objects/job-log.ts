import type { JobLogEntry, JobLogLevel, LogEntry } from '#migrate/jobs/step.ts';

/**
 * The log of a job's Durable Object in its SQLite storage (table `log`): entries in order, the
 * newest `keep` kept. A migration run's entries also name their table (`withTables`); the other
 * jobs' tables were created without that column and keep their shape.
 */
export class JobLog {
  constructor(
    private readonly sql: SqlStorage,
    private readonly keep = 1_000,
    private readonly withTables = false,
  ) {
    sql.exec(
      withTables
        ? 'CREATE TABLE IF NOT EXISTS log (id INTEGER PRIMARY KEY AUTOINCREMENT, level TEXT NOT NULL, message TEXT NOT NULL, table_name TEXT, timestamp TEXT NOT NULL)'
        : 'CREATE TABLE IF NOT EXISTS log (id INTEGER PRIMARY KEY AUTOINCREMENT, level TEXT NOT NULL, message TEXT NOT NULL, timestamp TEXT NOT NULL)',
    );
  }

  append(level: JobLogLevel, message: string, tableName: string | null = null): void {
    const at = new Date().toISOString();
    if (this.withTables)
      this.sql.exec('INSERT INTO log (level, message, table_name, timestamp) VALUES (?, ?, ?, ?)', level, message, tableName, at);
    else this.sql.exec('INSERT INTO log (level, message, timestamp) VALUES (?, ?, ?)', level, message, at);
    this.sql.exec('DELETE FROM log WHERE id <= (SELECT max(id) FROM log) - ?', this.keep);
  }

  /** The newest `count` entries, oldest first. */
  recent(count: number): JobLogEntry[] {
    return this.sql
      .exec<{ level: JobLogLevel; message: string; timestamp: string }>(
        'SELECT level, message, timestamp FROM log ORDER BY id DESC LIMIT ?',
        count,
      )
      .toArray()
      .reverse()
      .map((r) => ({ level: r.level, message: r.message, timestamp: r.timestamp }));
  }

  /** The newest `count` entries with their tables, oldest first (a log made `withTables`). */
  recentWithTables(count: number): LogEntry[] {
    return this.sql
      .exec<{ level: JobLogLevel; message: string; table_name: string | null; timestamp: string }>(
        'SELECT level, message, table_name, timestamp FROM log ORDER BY id DESC LIMIT ?',
        count,
      )
      .toArray()
      .reverse()
      .map((r) => ({ level: r.level, message: r.message, tableName: r.table_name, timestamp: r.timestamp }));
  }
}
