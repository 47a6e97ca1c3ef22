// The part of autocannon's programmatic API the load bench uses (the package ships no types).
declare module 'autocannon' {
  export interface RequestSpec {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
    setupRequest?: (request: RequestSpec, context: Record<string, unknown>) => RequestSpec;
    onResponse?: (status: number, body: string, context: Record<string, unknown>, headers: Record<string, string>) => void;
  }
  export interface Options {
    url: string;
    connections?: number;
    duration?: number;
    amount?: number;
    timeout?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    requests?: RequestSpec[];
    initialContext?: Record<string, unknown>;
    /** Requests per second across all connections (a fixed rate), or per connection (connectionRate). */
    overallRate?: number;
    connectionRate?: number;
  }
  export interface Result {
    requests: { average: number; total: number };
    errors: number;
    timeouts: number;
    non2xx: number;
    duration: number;
    statusCodeStats: Record<string, { count: number }>;
  }
  export interface Instance extends PromiseLike<Result> {
    on(event: 'response', listener: (client: unknown, statusCode: number, resBytes: number, responseTime: number) => void): void;
    on(event: 'reqError', listener: (error: Error) => void): void;
    on(event: 'done', listener: (result: Result) => void): void;
    stop(): void;
  }
  function autocannon(options: Options): Instance;
  export default autocannon;
}
