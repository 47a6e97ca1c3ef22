// The part of node:sqlite scripts/d1-local-sqlite.ts (run by Deno) uses: the project's @types/node
// (for Node 20) predates the module.
declare module 'node:sqlite' {
  export interface DatabaseSyncOptions {
    enableForeignKeyConstraints?: boolean;
    timeout?: number;
  }
  export class StatementSync {
    private constructor();
    all(...anonymousParameters: (null | number | bigint | string | Uint8Array)[]): unknown[];
  }
  export class DatabaseSync {
    constructor(path: string, options?: DatabaseSyncOptions);
    close(): void;
    exec(sql: string): void;
    prepare(sql: string): StatementSync;
    readonly isTransaction: boolean;
  }
}
