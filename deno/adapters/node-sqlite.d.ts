// The part of node:sqlite the adapters use. The project's @types/node (for Node 20) predates the
// module, and Deno type-checks node: imports against it, so these typings stand in for it.
declare module 'node:sqlite' {
  export type SQLInputValue = null | number | bigint | string | Uint8Array;
  export type SQLOutputValue = null | number | bigint | string | Uint8Array;
  export interface StatementResultingChanges {
    changes: number | bigint;
    lastInsertRowid: number | bigint;
  }
  export interface StatementColumnMetadata {
    column: string | null;
    database: string | null;
    name: string;
    table: string | null;
    type: string | null;
  }
  export interface DatabaseSyncOptions {
    open?: boolean;
    readOnly?: boolean;
    enableForeignKeyConstraints?: boolean;
    timeout?: number;
  }
  export class StatementSync {
    private constructor();
    all(...anonymousParameters: SQLInputValue[]): unknown[];
    get(...anonymousParameters: SQLInputValue[]): unknown;
    iterate(...anonymousParameters: SQLInputValue[]): IterableIterator<unknown>;
    run(...anonymousParameters: SQLInputValue[]): StatementResultingChanges;
    columns(): StatementColumnMetadata[];
    setReadBigInts(enabled: boolean): void;
    setReturnArrays(enabled: boolean): void;
    readonly sourceSQL: string;
  }
  export class DatabaseSync {
    constructor(path: string, options?: DatabaseSyncOptions);
    close(): void;
    exec(sql: string): void;
    prepare(sql: string): StatementSync;
    readonly isOpen: boolean;
    readonly isTransaction: boolean;
  }
}
