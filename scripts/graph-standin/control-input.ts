import { GraphError, isRecord, parseJsonBody } from './http.ts';

/** Reading a control request's JSON body; a bad one is a 400 with what was wrong. */

export function object(body: Buffer): Record<string, unknown> {
  const input = parseJsonBody(body);
  if (!isRecord(input)) throw invalid('the body must be a JSON object');
  return input;
}

export function optionalString(input: Record<string, unknown>, key: string): string | undefined {
  const value = input[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw invalid(`${key} must be a string`);
  return value;
}

export function invalid(message: string): GraphError {
  return new GraphError(400, 'BadRequest', message);
}
