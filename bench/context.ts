/** What every benchmark section gets: the real Postgres with `bench` data, and a relay to it. */
export interface BenchContext {
  /** postgres:// URL of the bench database (PostgreSQL 15 with `bench` data). */
  url: string;
  /** ws:// address of a running relay, for a Worker's PG_WS_PROXY. */
  relay: string;
  /** Samples per figure (BENCH_RUNS, default 200). */
  runs: number;
  /** The date the bench data is anchored on (yyyy-mm-dd). */
  today: string;
}
