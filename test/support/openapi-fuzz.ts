import fc from 'fast-check';
import { inject } from 'vitest';

// Property-based requests from an OpenAPI 3.x document: for every operation, fast-check generates
// path, query and header values and request bodies from the document's schemas, valid ones and
// invalid ones (wrong types, missing required and extra fields, huge, unicode and NUL-bearing
// strings, boundary and out-of-range numbers, malformed JSON, wrong content types), sends each
// with every credential the test supplies, and checks the answer: a status the operation
// documents, a body that matches the documented schema, never a 5xx, never slower than the
// timeout. The number of cases per operation is small by default; FUZZ_RUNS raises it and
// FUZZ_SEED replays a reported failure.

// ---- the document ------------------------------------------------------------------------

export type Schema = {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number | boolean;
  exclusiveMaximum?: number | boolean;
  multipleOf?: number;
  items?: Schema;
  prefixItems?: Schema[];
  minItems?: number;
  maxItems?: number;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  not?: Schema;
  nullable?: boolean;
  default?: unknown;
  [key: string]: unknown;
};

export type Parameter = { name: string; in: 'path' | 'query' | 'header' | 'cookie'; required?: boolean; schema?: Schema };
type MediaType = { schema?: Schema };
export type Operation = {
  operationId?: string;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content?: Record<string, MediaType> };
  responses?: Record<string, { content?: Record<string, MediaType> }>;
};
export type OpenApiDocument = {
  openapi: string;
  paths: Record<string, Record<string, Operation | Parameter[] | unknown>>;
  components?: { schemas?: Record<string, Schema>; parameters?: Record<string, Parameter> };
};

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

export interface DocumentedOperation {
  /** `METHOD /path/{param}` as the document writes it. */
  key: string;
  method: string;
  path: string;
  operation: Operation;
  parameters: Parameter[];
}

/** Every operation of the document, with path-level parameters merged into the operation's own. */
export function operationsOf(doc: OpenApiDocument): DocumentedOperation[] {
  const out: DocumentedOperation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    const shared = ((item as { parameters?: Parameter[] }).parameters ?? []).map((p) => deref(doc, p));
    for (const method of METHODS) {
      const operation = item[method] as Operation | undefined;
      if (!operation) continue;
      const own = (operation.parameters ?? []).map((p) => deref(doc, p));
      const parameters = [...shared.filter((s) => !own.some((o) => o.name === s.name && o.in === s.in)), ...own];
      out.push({ key: `${method.toUpperCase()} ${path}`, method: method.toUpperCase(), path, operation, parameters });
    }
  }
  return out;
}

function deref<T>(doc: OpenApiDocument, value: T): T {
  let current = value as T & { $ref?: string };
  for (let depth = 0; current && typeof current === 'object' && typeof current.$ref === 'string'; depth++) {
    if (depth > 20) throw new Error(`$ref cycle at ${current.$ref}`);
    const parts = current.$ref
      .replace(/^#\//, '')
      .split('/')
      .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
    let target: unknown = doc;
    for (const part of parts) target = (target as Record<string, unknown> | undefined)?.[part];
    if (target === undefined) throw new Error(`unresolved $ref ${current.$ref}`);
    current = target as T & { $ref?: string };
  }
  return current;
}

// ---- validating answers against a schema -------------------------------------------------

/** The problems of `value` against `schema` (empty when it matches), JSON Schema 2020-12 / OpenAPI 3.0 subset. */
export function validate(doc: OpenApiDocument, schema: Schema | undefined, value: unknown, at = '$'): string[] {
  if (!schema || schema === (true as unknown)) return [];
  if ((schema as unknown) === false) return [`${at}: no value is allowed here`];
  const s = deref(doc, schema);
  const problems: string[] = [];
  if (s.nullable && value === null) return [];
  if (s.allOf) for (const part of s.allOf) problems.push(...validate(doc, part, value, at));
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = s[key];
    if (options && !options.some((o) => validate(doc, o, value, at).length === 0)) {
      const detail = options.map((o) => validate(doc, o, value, at)[0]).join(' | ');
      problems.push(`${at}: matches none of ${key} (${detail})`);
    }
  }
  if (s.not && validate(doc, s.not, value, at).length === 0) problems.push(`${at}: matches a schema it must not`);
  if ('const' in s && !deepEqual(s.const, value)) problems.push(`${at}: must be ${JSON.stringify(s.const)}`);
  if (s.enum && !s.enum.some((e) => deepEqual(e, value)))
    problems.push(`${at}: ${clip(JSON.stringify(value), 80)} is not one of ${clip(JSON.stringify(s.enum), 200)}`);
  const types = s.type === undefined ? undefined : Array.isArray(s.type) ? s.type : [s.type];
  if (types && !types.some((t) => hasType(value, t))) {
    problems.push(`${at}: expected ${types.join(' or ')}, got ${typeName(value)} ${clip(JSON.stringify(value), 80)}`);
    return problems;
  }
  if (typeof value === 'string') {
    const length = [...value].length;
    if (s.minLength !== undefined && length < s.minLength) problems.push(`${at}: shorter than ${s.minLength}`);
    if (s.maxLength !== undefined && length > s.maxLength) problems.push(`${at}: longer than ${s.maxLength}`);
    if (s.pattern !== undefined && !new RegExp(s.pattern, 'u').test(value))
      problems.push(`${at}: ${clip(JSON.stringify(value), 80)} does not match ${s.pattern}`);
    const format = FORMATS[s.format ?? ''];
    if (format && !format(value)) problems.push(`${at}: ${clip(JSON.stringify(value), 80)} is not a ${s.format}`);
  }
  if (typeof value === 'number') {
    if (s.minimum !== undefined && value < s.minimum) problems.push(`${at}: ${value} below minimum ${s.minimum}`);
    if (s.maximum !== undefined && value > s.maximum) problems.push(`${at}: ${value} above maximum ${s.maximum}`);
    if (typeof s.exclusiveMinimum === 'number' && value <= s.exclusiveMinimum)
      problems.push(`${at}: ${value} not above ${s.exclusiveMinimum}`);
    if (typeof s.exclusiveMaximum === 'number' && value >= s.exclusiveMaximum)
      problems.push(`${at}: ${value} not below ${s.exclusiveMaximum}`);
    if (s.exclusiveMinimum === true && s.minimum !== undefined && value <= s.minimum)
      problems.push(`${at}: ${value} not above ${s.minimum}`);
    if (s.exclusiveMaximum === true && s.maximum !== undefined && value >= s.maximum)
      problems.push(`${at}: ${value} not below ${s.maximum}`);
  }
  if (Array.isArray(value)) {
    if (s.minItems !== undefined && value.length < s.minItems) problems.push(`${at}: fewer than ${s.minItems} items`);
    if (s.maxItems !== undefined && value.length > s.maxItems) problems.push(`${at}: more than ${s.maxItems} items`);
    value.forEach((item, i) => {
      const itemSchema = s.prefixItems?.[i] ?? s.items;
      problems.push(...validate(doc, itemSchema, item, `${at}[${i}]`));
    });
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    for (const name of s.required ?? []) if (!(name in record)) problems.push(`${at}: missing required ${name}`);
    for (const [name, item] of Object.entries(record)) {
      const known = s.properties?.[name];
      if (known) problems.push(...validate(doc, known, item, `${at}.${name}`));
      else if (s.additionalProperties === false) problems.push(`${at}: unexpected property ${name}`);
      else if (typeof s.additionalProperties === 'object') problems.push(...validate(doc, s.additionalProperties, item, `${at}.${name}`));
    }
  }
  return problems;
}

const FORMATS: Record<string, (v: string) => boolean> = {
  'date-time': (v) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i.test(v) && !Number.isNaN(Date.parse(v)),
  date: (v) => /^\d{4}-\d{2}-\d{2}$/.test(v),
  uuid: (v) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v),
};

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case 'null':
      return value === null;
    case 'string':
      return typeof value === 'string';
    case 'boolean':
      return typeof value === 'boolean';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'array':
      return Array.isArray(value);
    case 'object':
      return value !== null && typeof value === 'object' && !Array.isArray(value);
    default:
      return true;
  }
}

/** At most `n` code points of `text`, well-formed (a message with a lone surrogate cannot cross to the test runner). */
function clip(text: string | undefined, n: number): string {
  if (text === undefined) return 'undefined';
  const points = Array.from(text.length > n * 2 ? text.slice(0, n * 2) : text);
  const kept = points.length > n ? `${points.slice(0, n).join('')}…` : points.join('');
  return kept.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

const typeName = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);

function deepEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

// ---- generating values from a schema -----------------------------------------------------

/** Strings a client may send: plain text, any Unicode, and the awkward characters. */
const anyText = (maxLength = 40) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.string({ maxLength }) },
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '\u0000',
        'a\u0000b',
        '\uFEFF',
        '😀🏇',
        'Ωmega',
        '\u202Eevil',
        "'; drop table x; --",
        '../..',
        '%00',
        ' ',
        '\r\n',
      ),
    },
  );

const hugeText = fc.constantFrom(5_000, 70_000).chain((n) => fc.constantFrom('x'.repeat(n), 'é'.repeat(n), `${'\u0000'.repeat(n)}`));

const BOUNDARY_NUMBERS = [
  0,
  -0,
  -1,
  1,
  0.5,
  -0.5,
  2 ** 31 - 1,
  2 ** 31,
  -(2 ** 31) - 1,
  2 ** 53,
  Number.MAX_SAFE_INTEGER,
  -Number.MAX_SAFE_INTEGER,
  1e308,
  -1e308,
  5e-324,
];

/** A value `schema` accepts (as well as the generator can tell: patterns are honoured, formats approximated). */
export function validValue(doc: OpenApiDocument, schema: Schema | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (!schema) return anyJson(depth);
  const s = deref(doc, schema);
  if ('const' in s) return fc.constant(s.const);
  if (s.enum) return fc.constantFrom(...s.enum);
  if (s.anyOf ?? s.oneOf) return fc.oneof(...(s.anyOf ?? s.oneOf)!.map((o) => validValue(doc, o, depth + 1)));
  if (s.allOf) {
    const merged = mergeAllOf(doc, s);
    return validValue(doc, merged, depth + 1);
  }
  const types = s.type === undefined ? inferTypes(s) : Array.isArray(s.type) ? s.type : [s.type];
  const options = types.map((t) => validOfType(doc, s, t, depth));
  if (s.nullable) options.push(fc.constant(null));
  return options.length === 1 ? options[0]! : fc.oneof(...options);
}

function inferTypes(s: Schema): string[] {
  if (s.properties || s.required || s.additionalProperties !== undefined) return ['object'];
  if (s.items || s.prefixItems) return ['array'];
  if (s.pattern !== undefined || s.minLength !== undefined || s.maxLength !== undefined || s.format) return ['string'];
  if (s.minimum !== undefined || s.maximum !== undefined) return ['number'];
  return ['any'];
}

function mergeAllOf(doc: OpenApiDocument, s: Schema): Schema {
  const merged: Schema = { ...s, allOf: undefined };
  for (const part of s.allOf ?? []) {
    const p = deref(doc, part);
    const inner = p.allOf ? mergeAllOf(doc, p) : p;
    Object.assign(merged, {
      ...inner,
      properties: { ...merged.properties, ...inner.properties },
      required: [...(merged.required ?? []), ...(inner.required ?? [])],
    });
  }
  return merged;
}

function validOfType(doc: OpenApiDocument, s: Schema, type: string, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
    case 'number': {
      let min = s.minimum ?? (type === 'integer' ? -(2 ** 31) : -1e9);
      let max = s.maximum ?? (type === 'integer' ? 2 ** 31 - 1 : 1e9);
      if (typeof s.exclusiveMinimum === 'number') min = Math.max(min, s.exclusiveMinimum + (type === 'integer' ? 1 : 1e-6));
      if (typeof s.exclusiveMaximum === 'number') max = Math.min(max, s.exclusiveMaximum - (type === 'integer' ? 1 : 1e-6));
      if (s.exclusiveMinimum === true) min += type === 'integer' ? 1 : 1e-6;
      if (s.exclusiveMaximum === true) max -= type === 'integer' ? 1 : 1e-6;
      if (type === 'integer') {
        const lo = Math.max(Math.ceil(min), Number.MIN_SAFE_INTEGER);
        const hi = Math.min(Math.floor(max), Number.MAX_SAFE_INTEGER);
        const edges = [lo, hi, 0, 1].filter((n) => n >= lo && n <= hi);
        return fc.oneof(
          { weight: 3, arbitrary: fc.integer({ min: Math.max(lo, -(2 ** 31)), max: Math.min(hi, 2 ** 31 - 1) }) },
          { weight: 1, arbitrary: fc.constantFrom(...edges) },
        );
      }
      return fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
    }
    case 'string': {
      const format = s.format;
      if (format === 'date-time')
        return fc.date({ min: new Date('1970-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString());
      if (format === 'date')
        return fc
          .date({ min: new Date('1970-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
          .map((d) => d.toISOString().slice(0, 10));
      if (format === 'uuid') return fc.uuid();
      if (format === 'email') return fc.emailAddress();
      if (format === 'uri' || format === 'url') return fc.webUrl();
      if (format === 'binary') return fc.string({ maxLength: 64 });
      if (s.pattern !== undefined) {
        try {
          const re = new RegExp(s.pattern);
          // Not filtered to the length bounds (a filter that rarely passes would spin): a value out of
          // them is one more invalid input.
          return fc.stringMatching(re, { size: 'xsmall' });
        } catch {
          // A pattern fast-check cannot generate from: plain text, which the service may refuse.
        }
      }
      const minLength = s.minLength ?? 0;
      const maxLength = Math.max(minLength, Math.min(s.maxLength ?? minLength + 40, minLength + 200));
      return fc.oneof(
        { weight: 3, arbitrary: fc.string({ minLength, maxLength }) },
        { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength, maxLength }) },
        { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength, maxLength }) },
      );
    }
    case 'array': {
      const minItems = s.minItems ?? 0;
      const maxItems = Math.min(s.maxItems ?? minItems + 4, minItems + 6);
      if (s.prefixItems) return fc.tuple(...s.prefixItems.map((p) => validValue(doc, p, depth + 1)));
      if (depth > 6) return fc.constant(new Array(minItems).fill(null));
      return fc.array(validValue(doc, s.items, depth + 1), { minLength: minItems, maxLength: maxItems });
    }
    case 'object': {
      const properties = s.properties ?? {};
      const required = new Set(s.required ?? []);
      if (depth > 6) return fc.constant({});
      const shape: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [name, prop] of Object.entries(properties)) shape[name] = validValue(doc, prop, depth + 1);
      return fc.record(shape, { requiredKeys: [...required].filter((r) => r in properties) });
    }
    default:
      return anyJson(depth);
  }
}

const anyJson = (depth: number): fc.Arbitrary<unknown> =>
  depth > 4 ? fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null)) : fc.jsonValue({ maxDepth: 2 });

/** A value of the wrong type for `schema`, or one of its type that breaks its bounds. */
export function invalidValue(doc: OpenApiDocument, schema: Schema | undefined, depth = 0): fc.Arbitrary<unknown> {
  const wrongTypes: fc.Arbitrary<unknown>[] = [
    fc.constant(null),
    fc.boolean(),
    fc.constantFrom(...BOUNDARY_NUMBERS),
    anyText(),
    hugeText,
    fc.constant([]),
    fc.constant({}),
    fc.array(fc.string(), { minLength: 1, maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), { maxKeys: 3 }),
  ];
  if (!schema) return fc.oneof(...wrongTypes);
  const s = deref(doc, schema);
  const near: fc.Arbitrary<unknown>[] = [];
  const types = s.type === undefined ? inferTypes(s) : Array.isArray(s.type) ? s.type : [s.type];
  for (const type of types) {
    if (type === 'string') {
      near.push(anyText(), hugeText);
      if (s.maxLength !== undefined) near.push(fc.constant('y'.repeat(s.maxLength + 1)));
      if (s.minLength) near.push(fc.constant('y'.repeat(s.minLength - 1)));
    }
    if (type === 'integer' || type === 'number') {
      const edges = [...BOUNDARY_NUMBERS];
      if (s.minimum !== undefined) edges.push(s.minimum - 1, s.minimum - 0.5, s.minimum);
      if (s.maximum !== undefined) edges.push(s.maximum + 1, s.maximum + 0.5, s.maximum);
      near.push(fc.constantFrom(...edges));
    }
    if (type === 'array' && depth < 4) {
      near.push(fc.array(invalidValue(doc, s.items, depth + 1), { minLength: 1, maxLength: 3 }));
      if (s.maxItems !== undefined)
        near.push(fc.array(validValue(doc, s.items, depth + 1), { minLength: s.maxItems + 1, maxLength: s.maxItems + 2 }));
    }
    if (type === 'object' && depth < 4) near.push(invalidObject(doc, s, depth));
  }
  if (s.anyOf ?? s.oneOf)
    near.push(...(s.anyOf ?? s.oneOf)!.filter((o) => deref(doc, o).properties).map((o) => invalidObject(doc, deref(doc, o), depth)));
  return fc.oneof(...wrongTypes, ...near, ...near);
}

/** An object with a required field missing, an extra field, or one field invalid. */
function invalidObject(doc: OpenApiDocument, s: Schema, depth: number): fc.Arbitrary<unknown> {
  const base = validValue(doc, s, depth + 1) as fc.Arbitrary<Record<string, unknown>>;
  const names = Object.keys(s.properties ?? {});
  const required = s.required ?? [];
  const options: fc.Arbitrary<unknown>[] = [
    fc
      .tuple(base, fc.string({ minLength: 1, maxLength: 12 }), fc.jsonValue({ maxDepth: 1 }))
      .map(([obj, key, value]) => ({ ...obj, [key]: value })),
  ];
  if (required.length)
    options.push(
      fc.tuple(base, fc.constantFrom(...required)).map(([obj, key]) => Object.fromEntries(Object.entries(obj).filter(([k]) => k !== key))),
    );
  if (names.length) {
    options.push(
      fc
        .constantFrom(...names)
        .chain((name) => fc.tuple(base, invalidValue(doc, s.properties![name], depth + 1)).map(([obj, bad]) => ({ ...obj, [name]: bad }))),
    );
  }
  return fc.oneof(...options);
}

// ---- requests ----------------------------------------------------------------------------

/** One way of presenting credentials (or none): headers added to every request of that kind. */
export interface Credential {
  name: string;
  headers: Record<string, string>;
}

interface BodyCase {
  kind: string;
  contentType?: string;
  body?: string | FormData;
}

export interface FuzzCase {
  credential: string;
  path: string;
  query: [string, string][];
  headers: Record<string, string>;
  body?: BodyCase;
}

/** A parameter's value as a URL or header carries it. */
function serialize(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap((v) => serialize(v));
  if (value === null || value === undefined) return [''];
  if (typeof value === 'object') return [JSON.stringify(value)];
  return [String(value)];
}

const asciiHeaderValue = (value: string) =>
  value
    .replace(/[^\x20-\x7e]/g, '?')
    .trim()
    .slice(0, 4096);

function paramArbitrary(doc: OpenApiDocument, param: Parameter): fc.Arbitrary<string[] | undefined> {
  const schema = param.schema;
  const valid = validValue(doc, schema).map(serialize);
  const invalid = fc.oneof(
    invalidValue(doc, schema).map(serialize),
    anyText().map((t) => [t]),
    hugeText.map((t) => [t.slice(0, param.in === 'path' ? 3_000 : 10_000)]),
  );
  const present = fc.oneof({ weight: 4, arbitrary: valid }, { weight: 2, arbitrary: invalid });
  // A required parameter is left out now and then; an optional one often.
  return param.required
    ? fc.oneof({ weight: 9, arbitrary: present }, { weight: 1, arbitrary: fc.constant(undefined) })
    : fc.option(present, { freq: 2, nil: undefined });
}

function bodyArbitrary(doc: OpenApiDocument, op: Operation): fc.Arbitrary<BodyCase | undefined> {
  const content = op.requestBody?.content;
  const malformed: fc.Arbitrary<BodyCase>[] = [
    fc
      .constantFrom('{', '{"a":', '[1,2', 'nul', '{"x":1}}', '\u0000', '', '{"a":"\ud800"}')
      .map((body) => ({ kind: 'malformed json', contentType: 'application/json', body })),
    anyText(200).map((body) => ({ kind: 'malformed json', contentType: 'application/json', body })),
    fc.jsonValue({ maxDepth: 2 }).map((v) => ({ kind: 'json of another shape', contentType: 'application/json', body: JSON.stringify(v) })),
    fc
      .constantFrom(
        'text/plain',
        'application/xml',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/json; charset=latin1',
        'application/jsonx',
      )
      .map((contentType) => ({
        kind: 'wrong content type',
        contentType,
        body: contentType.startsWith('application/x-www') ? 'a=1&b=%00' : '{"a":1}',
      })),
    fc.constant({ kind: 'no content type', body: '{"a":1}' }),
    fc
      .constantFrom(20_000, 1_100_000)
      .map((n) => ({ kind: 'huge body', contentType: 'application/json', body: JSON.stringify({ padding: 'x'.repeat(n) }) })),
  ];
  if (!content) {
    // No body documented: now and then one is sent anyway.
    return fc.oneof({ weight: 6, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.oneof(...malformed) });
  }
  const json = content['application/json'];
  const options: fc.WeightedArbitrary<BodyCase | undefined>[] = [];
  if (json) {
    options.push({
      weight: 6,
      arbitrary: validValue(doc, json.schema).map((v) => ({
        kind: 'valid json',
        contentType: 'application/json',
        body: JSON.stringify(v),
      })),
    });
    options.push({
      weight: 4,
      arbitrary: invalidValue(doc, json.schema).map((v) => ({
        kind: 'invalid json',
        contentType: 'application/json',
        body: JSON.stringify(v) ?? 'null',
      })),
    });
  }
  const multipart = content['multipart/form-data'] ?? content['application/x-www-form-urlencoded'];
  if (multipart) {
    const type = content['multipart/form-data'] ? 'multipart/form-data' : 'application/x-www-form-urlencoded';
    const build = (fields: Record<string, unknown>) => {
      const form = new FormData();
      for (const [name, value] of Object.entries(fields ?? {})) {
        const s = deref(doc, deref(doc, multipart.schema ?? {}).properties?.[name] ?? {});
        if (s.format === 'binary') form.append(name, new Blob([String(value)], { type: 'image/png' }), 'file.png');
        else for (const v of serialize(value)) form.append(name, v);
      }
      if (type === 'multipart/form-data') return { kind: 'valid form', body: form } as BodyCase;
      const encoded = new URLSearchParams();
      for (const [k, v] of form) if (typeof v === 'string') encoded.append(k, v);
      return { kind: 'valid form', contentType: type, body: encoded.toString() } as BodyCase;
    };
    options.push({ weight: 5, arbitrary: validValue(doc, multipart.schema).map((v) => build(v as Record<string, unknown>)) });
    options.push({ weight: 3, arbitrary: fc.dictionary(fc.string({ maxLength: 10 }), anyText(), { maxKeys: 4 }).map((v) => build(v)) });
  }
  if (!json && !multipart) {
    const [type] = Object.keys(content);
    options.push({ weight: 5, arbitrary: anyText(200).map((body) => ({ kind: 'raw body', contentType: type, body })) });
  }
  if (!op.requestBody?.required) options.push({ weight: 1, arbitrary: fc.constant(undefined) });
  else options.push({ weight: 1, arbitrary: fc.constant({ kind: 'missing body', contentType: json ? 'application/json' : undefined }) });
  options.push(...malformed.map((arbitrary) => ({ weight: 1, arbitrary })));
  return fc.oneof(...options);
}

/** The generator of whole requests for one operation. */
export function caseArbitrary(
  doc: OpenApiDocument,
  op: DocumentedOperation,
  credentials: Credential[],
  skipHeaders: Set<string>,
): fc.Arbitrary<FuzzCase> {
  const params = op.parameters.filter((p) => p.in !== 'cookie' && !(p.in === 'header' && skipHeaders.has(p.name.toLowerCase())));
  const shape: Record<string, fc.Arbitrary<string[] | undefined>> = {};
  params.forEach((p, i) => (shape[`${i}`] = p.in === 'path' ? pathParamArbitrary(doc, p) : paramArbitrary(doc, p)));
  const extraQuery = fc.option(fc.tuple(fc.string({ minLength: 1, maxLength: 10 }), anyText()), { freq: 4, nil: undefined });
  return fc
    .record({
      credential: fc.constantFrom(...credentials.map((c) => c.name)),
      values: fc.record(shape),
      extraQuery,
      body: bodyArbitrary(doc, op.operation),
    })
    .map(({ credential, values, extraQuery, body }) => {
      let path = op.path;
      const query: [string, string][] = [];
      const headers: Record<string, string> = {};
      params.forEach((p, i) => {
        const value = values[`${i}`];
        if (p.in === 'path') {
          // A dot segment would leave the operation's path (the URL parser resolves it away).
          const segment = value?.[0] ?? '';
          path = path.replace(`{${p.name}}`, encodeURIComponent(segment === '.' || segment === '..' ? `${segment}x` : segment));
        } else if (value === undefined) return;
        else if (p.in === 'query') for (const v of value) query.push([p.name, v]);
        else if (p.in === 'header') headers[p.name] = asciiHeaderValue(value.join(','));
      });
      if (extraQuery) query.push(extraQuery);
      return { credential, path, query, headers, body };
    });
}

/** A path parameter is always present (else the route is another one); it may still be nonsense. */
function pathParamArbitrary(doc: OpenApiDocument, param: Parameter): fc.Arbitrary<string[]> {
  const valid = validValue(doc, param.schema).map(serialize);
  const invalid = fc.oneof(
    invalidValue(doc, param.schema).map(serialize),
    fc
      .constantFrom('0', '-1', '1.5', '99999999999999999999', 'NaN', 'null', '%', '..', 'a b', '\u0000', '😀', "'", 'x'.repeat(2000))
      .map((v) => [v]),
  );
  return fc
    .oneof({ weight: 3, arbitrary: valid }, { weight: 2, arbitrary: invalid })
    .map((v) => (v[0] === '' || v[0] === undefined ? ['x'] : v));
}

export function toRequest(
  base: string,
  op: DocumentedOperation,
  c: FuzzCase,
  credentials: Credential[],
  extraHeaders: () => Record<string, string>,
): Request {
  const url = new URL(base.replace(/\/$/, '') + c.path);
  for (const [k, v] of c.query) url.searchParams.append(k, v);
  const headers = new Headers();
  for (const [k, v] of Object.entries(extraHeaders())) headers.set(k, v);
  for (const [k, v] of Object.entries(c.headers)) headers.set(k, v);
  for (const [k, v] of Object.entries(credentials.find((cr) => cr.name === c.credential)?.headers ?? {})) headers.set(k, v);
  const body = op.method === 'GET' || op.method === 'HEAD' ? undefined : c.body;
  if (body?.contentType) headers.set('content-type', body.contentType);
  return new Request(url, { method: op.method, headers, body: body?.body, redirect: 'manual' });
}

// ---- checking answers --------------------------------------------------------------------

/** What is wrong with `res` as an answer to `op` (undefined when nothing is). */
export async function checkAnswer(doc: OpenApiDocument, op: DocumentedOperation, res: Response): Promise<string | undefined> {
  const responses = op.operation.responses ?? {};
  const status = String(res.status);
  const documented = responses[status] ?? responses[`${status[0]}XX`] ?? responses[`${status[0]}xx`];
  const text = await res.text();
  const excerpt = clip(text, 300);
  if (res.status >= 500) return `answered ${res.status} (${excerpt})`;
  if (!documented)
    return `answered ${res.status}, which the document does not list (it lists ${Object.keys(responses).join(', ')}): ${excerpt}`;
  const contentType = (res.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  const content = documented.content;
  if (!content || Object.keys(content).length === 0) return undefined;
  const media =
    content[contentType] ?? Object.entries(content).find(([type]) => type.endsWith('/*') && contentType.startsWith(type.slice(0, -1)))?.[1];
  if (!media) {
    if (res.status >= 300 && res.status < 400 && text === '') return undefined;
    return `answered ${res.status} as ${contentType || 'no content type'}, the document says ${Object.keys(content).join(' or ')}: ${excerpt}`;
  }
  if (contentType !== 'application/json' && !contentType.endsWith('+json')) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return `answered ${res.status} with a body that is not JSON: ${excerpt}`;
  }
  const problems = validate(doc, media.schema, body);
  if (problems.length)
    return `answered ${res.status} with a body the documented schema refuses: ${problems.slice(0, 5).join('; ')} — body ${excerpt}`;
  return undefined;
}

// ---- running -----------------------------------------------------------------------------

export const DEFAULT_RUNS = 12;

/** A fuzz test's own time limit: the cases are bounded, their sum is not a unit test's. */
export const FUZZ_TIMEOUT_MS = 30 * 60_000;

/** Runs per operation: FUZZ_RUNS of the test run (test/global-setup.ts hands it in) if set, else the default. */
export function fuzzRuns(raw: string = inject('fuzzRuns')): number {
  const runs = Number(raw);
  return raw !== '' && Number.isInteger(runs) && runs > 0 ? runs : DEFAULT_RUNS;
}

/** The seed: FUZZ_SEED of the test run if set, else a fixed one, so a run is repeatable. */
export function fuzzSeed(raw: string = inject('fuzzSeed')): number {
  const seed = Number(raw);
  return raw !== '' && Number.isInteger(seed) ? seed : DEFAULT_SEED;
}

export const DEFAULT_SEED = 20_260_601;

export interface FuzzOptions {
  doc: OpenApiDocument;
  /** Origin plus any prefix, e.g. `https://cms.test`. */
  base: string;
  send: (request: Request) => Promise<Response>;
  /** Every way of calling the service; a `none` without credentials is always added. */
  credentials?: Credential[] | (() => Promise<Credential[]>);
  runs?: number;
  seed?: number;
  timeoutMs?: number;
  /** Header parameters the generator leaves to the credentials (e.g. `authorization`). */
  credentialHeaders?: string[];
  /** Headers of every request, fresh each time (e.g. a client address of its own). */
  headers?: () => Record<string, string>;
  /** Operation keys to run last, in this order (e.g. a logout that ends the session). */
  last?: string[];
  /** Called after each operation (e.g. to sign in again). */
  afterOperation?: (op: DocumentedOperation) => Promise<void>;
}

export interface FuzzReport {
  operations: string[];
  requests: number;
  statuses: Record<string, number>;
}

/**
 * Fuzzes every operation of the document and then throws if any answered against it, naming for
 * each such operation the first (shrunk) request, the problem and the seed that replays the run.
 */
export async function fuzzDocument(options: FuzzOptions): Promise<FuzzReport> {
  const { doc } = options;
  const runs = options.runs ?? fuzzRuns();
  const seed = options.seed ?? fuzzSeed();
  const timeoutMs = options.timeoutMs ?? 10_000;
  const skipHeaders = new Set((options.credentialHeaders ?? ['authorization', 'cookie', 'x-csrf-token']).map((h) => h.toLowerCase()));
  const last = options.last ?? [];
  const ops = operationsOf(doc).sort((a, b) => last.indexOf(a.key) - last.indexOf(b.key));
  const report: FuzzReport = { operations: [], requests: 0, statuses: {} };
  const failures: string[] = [];
  for (const op of ops) {
    const supplied = typeof options.credentials === 'function' ? await options.credentials() : (options.credentials ?? []);
    const credentials = [{ name: 'none', headers: {} }, ...supplied.filter((c) => c.name !== 'none')];
    const opSeed = (seed ^ hash(op.key)) | 0;
    const property = fc.asyncProperty(caseArbitrary(doc, op, credentials, skipHeaders), async (c) => {
      const request = toRequest(options.base, op, c, credentials, options.headers ?? (() => ({})));
      const described = `${op.key} as ${c.credential}: ${request.method} ${clip(request.url, 300)} body ${c.body ? `${c.body.kind} ${c.body.contentType ?? ''} ${typeof c.body.body === 'string' ? clip(c.body.body, 200) : 'form data'}` : 'none'}`;
      let timer: number | undefined;
      const timeout = new Promise<never>(
        (_, reject) => (timer = +setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms: ${described}`)), timeoutMs)),
      );
      try {
        const res = await Promise.race([options.send(request), timeout]);
        report.requests++;
        report.statuses[`${op.key} ${res.status}`] = (report.statuses[`${op.key} ${res.status}`] ?? 0) + 1;
        const problem = await Promise.race([checkAnswer(doc, op, res), timeout]);
        if (problem) throw new Error(`${described}\n  ${problem}`);
      } finally {
        if (timer !== undefined) clearTimeout(timer);
      }
    });
    const result = await fc.check(property, { numRuns: runs, seed: opSeed, endOnFailure: true });
    if (result.failed) {
      const error = result.errorInstance instanceof Error ? result.errorInstance.message : String(result.errorInstance);
      failures.push(
        `${op.key} failed after ${result.numRuns} of ${runs} cases (operation seed ${opSeed}, path ${result.counterexamplePath}):\n${error}`,
      );
    }
    report.operations.push(op.key);
    await options.afterOperation?.(op);
  }
  if (failures.length) {
    throw new Error(
      `${failures.length} of ${ops.length} operations answered against their document (FUZZ_SEED=${seed} FUZZ_RUNS=${runs} replays this):\n\n${failures.join('\n\n')}`,
    );
  }
  return report;
}

function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** FUZZ_RUNS and FUZZ_SEED of the run ('' when unset), from test/global-setup.ts. */
    fuzzRuns: string;
    fuzzSeed: string;
  }
}
