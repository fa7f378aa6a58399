// A minimal JSON Schema (2020-12) validator for cordon's own schemas (schema/*.json): type,
// const, enum, properties, required, additionalProperties, items, minItems, minimum, maximum,
// minLength, pattern, oneOf and local $ref. Returns every problem as "path: what".
type Schema = Record<string, unknown>;

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function matchesType(value: unknown, type: string): boolean {
  const t = typeOf(value);
  return t === type || (type === 'number' && t === 'integer');
}

export function validate(schema: Schema, value: unknown, root: Schema = schema, path = '$'): string[] {
  const errors: string[] = [];
  if (typeof schema['$ref'] === 'string') {
    const ref = schema['$ref'] as string;
    if (!ref.startsWith('#/')) return [`${path}: unsupported $ref ${ref}`];
    let target: unknown = root;
    for (const part of ref.slice(2).split('/')) target = (target as Schema)[part];
    if (target === undefined) return [`${path}: unresolved $ref ${ref}`];
    return validate(target as Schema, value, root, path);
  }
  if (schema['type'] !== undefined) {
    const types = Array.isArray(schema['type']) ? (schema['type'] as string[]) : [schema['type'] as string];
    if (!types.some((t) => matchesType(value, t)))
      return [`${path}: expected ${types.join(' or ')}, got ${typeOf(value)}`];
  }
  if ('const' in schema && JSON.stringify(schema['const']) !== JSON.stringify(value))
    errors.push(`${path}: expected ${JSON.stringify(schema['const'])}`);
  if (Array.isArray(schema['enum']) && !(schema['enum'] as unknown[]).includes(value))
    errors.push(`${path}: ${JSON.stringify(value)} is not one of ${JSON.stringify(schema['enum'])}`);
  if (Array.isArray(schema['oneOf'])) {
    const passing = (schema['oneOf'] as Schema[]).filter((s) => validate(s, value, root, path).length === 0);
    if (passing.length !== 1) errors.push(`${path}: matches ${passing.length} of oneOf, not exactly 1`);
  }
  if (typeof value === 'number') {
    if (typeof schema['minimum'] === 'number' && value < schema['minimum'])
      errors.push(`${path}: below minimum`);
    if (typeof schema['maximum'] === 'number' && value > schema['maximum'])
      errors.push(`${path}: above maximum`);
  }
  if (typeof value === 'string') {
    if (typeof schema['minLength'] === 'number' && value.length < schema['minLength'])
      errors.push(`${path}: shorter than ${schema['minLength']}`);
    if (typeof schema['pattern'] === 'string' && !new RegExp(schema['pattern'], 'u').test(value))
      errors.push(`${path}: does not match ${schema['pattern']}`);
  }
  if (Array.isArray(value)) {
    if (typeof schema['minItems'] === 'number' && value.length < schema['minItems'])
      errors.push(`${path}: fewer than ${schema['minItems']} items`);
    if (schema['items'] !== undefined)
      for (const [i, item] of value.entries())
        errors.push(...validate(schema['items'] as Schema, item, root, `${path}[${i}]`));
  }
  if (typeOf(value) === 'object') {
    const obj = value as Record<string, unknown>;
    const props = (schema['properties'] ?? {}) as Record<string, Schema>;
    for (const key of (schema['required'] ?? []) as string[])
      if (!(key in obj)) errors.push(`${path}: missing required ${key}`);
    for (const [key, v] of Object.entries(obj)) {
      if (v === undefined) continue;
      if (props[key]) errors.push(...validate(props[key]!, v, root, `${path}.${key}`));
      else if (schema['additionalProperties'] === false) errors.push(`${path}: unexpected property ${key}`);
      else if (typeof schema['additionalProperties'] === 'object')
        errors.push(...validate(schema['additionalProperties'] as Schema, v, root, `${path}.${key}`));
    }
  }
  return errors;
}
