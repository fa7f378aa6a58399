// A reader and a small evaluator for the subset of SBPL cordon emits, for tests on machines
// without Seatbelt. The reader checks syntax (balanced parentheses, closed strings); the
// evaluator answers "is OPERATION on PATH allowed" with Seatbelt's rule (the last matching
// rule wins, default deny) for path filters only. It is a model to test the generator's
// logic against the policy; only a Mac can say that Seatbelt agrees with the model.
import type { SeatbeltPlan } from '../../src/plan/types.ts';

export type Sexp = string | { str: string } | { regex: string } | Sexp[];

export function readSbpl(text: string): Sexp[] {
  let i = 0;
  const top: Sexp[] = [];
  const stack: Sexp[][] = [top];
  const readString = (): string => {
    let out = '';
    i++; // opening quote
    while (i < text.length && text[i] !== '"') {
      if (text[i] === '\\') {
        out += text[i + 1];
        i += 2;
      } else out += text[i++];
    }
    if (i >= text.length) throw new Error('unterminated string');
    i++;
    return out;
  };
  while (i < text.length) {
    const c = text[i]!;
    if (c === ';') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '(') {
      const list: Sexp[] = [];
      stack[stack.length - 1]!.push(list);
      stack.push(list);
      i++;
    } else if (c === ')') {
      if (stack.length === 1) throw new Error(`unbalanced ')' at offset ${i}`);
      stack.pop();
      i++;
    } else if (c === '"') {
      stack[stack.length - 1]!.push({ str: readString() });
    } else if (c === '#' && text[i + 1] === '"') {
      i++;
      stack[stack.length - 1]!.push({ regex: readString() });
    } else if (/\s/.test(c)) {
      i++;
    } else {
      let atom = '';
      while (i < text.length && !/[\s()";]/.test(text[i]!)) atom += text[i++];
      stack[stack.length - 1]!.push(atom);
    }
  }
  if (stack.length !== 1) throw new Error(`unbalanced: ${stack.length - 1} '(' not closed`);
  return top;
}

function isList(x: Sexp): x is Sexp[] {
  return Array.isArray(x);
}

/** Every (param "X") name used anywhere in the forms. */
export function paramRefs(forms: readonly Sexp[]): string[] {
  const out: string[] = [];
  const walk = (x: Sexp) => {
    if (!isList(x)) return;
    if (x[0] === 'param' && x.length === 2 && typeof x[1] === 'object' && 'str' in x[1]!) out.push(x[1].str);
    x.forEach(walk);
  };
  forms.forEach(walk);
  return out;
}

/** Every string literal (not regex) anywhere in the forms. */
export function stringLiterals(forms: readonly Sexp[]): string[] {
  const out: string[] = [];
  const walk = (x: Sexp) => {
    if (isList(x)) x.forEach(walk);
    else if (typeof x === 'object' && 'str' in x) out.push(x.str);
  };
  forms.forEach(walk);
  return out;
}

function opMatches(pattern: string, op: string): boolean {
  if (pattern === 'default') return true;
  return pattern.endsWith('*') ? op.startsWith(pattern.slice(0, -1)) : pattern === op;
}

function value(x: Sexp, params: Readonly<Record<string, string>>): string {
  if (typeof x === 'object' && !isList(x) && 'str' in x) return x.str;
  if (isList(x) && x[0] === 'param') {
    const name = (x[1] as { str: string }).str;
    const v = params[name];
    if (v === undefined) throw new Error(`unbound param ${name}`);
    return v;
  }
  throw new Error(`not a value: ${JSON.stringify(x)}`);
}

const REGEX_CACHE = new Map<string, RegExp>();

/** Whether a filter matches a path; filters about other things (vnode-type, extension) do not. */
function filterMatches(f: Sexp, path: string, params: Readonly<Record<string, string>>): boolean {
  if (!isList(f)) return false;
  switch (f[0]) {
    case 'literal':
      return path === value(f[1]!, params);
    case 'subpath': {
      const root = value(f[1]!, params);
      return root === '/' || path === root || path.startsWith(`${root}/`);
    }
    case 'regex': {
      const arg = f[1]!;
      const source =
        typeof arg === 'object' && !isList(arg) && 'regex' in arg ? arg.regex : value(arg, params);
      let re = REGEX_CACHE.get(source);
      if (!re) {
        re = new RegExp(source);
        REGEX_CACHE.set(source, re);
      }
      return re.test(path);
    }
    case 'require-all':
      return f.slice(1).every((g) => filterMatches(g, path, params));
    case 'require-any':
      return f.slice(1).some((g) => filterMatches(g, path, params));
    case 'require-not':
      return !filterMatches(f[1]!, path, params);
    case 'local':
    case 'remote':
      // (local|remote unix-socket PATH-FILTER): a socket's path; (remote ip "...") has none.
      return f[1] === 'unix-socket' && f[2] !== undefined && filterMatches(f[2], path, params);
    default:
      return false;
  }
}

/**
 * Seatbelt's decision for an operation on a path under this plan: last match wins. For
 * network-bind / network-outbound the path is a unix socket's.
 */
const parsed = new WeakMap<SeatbeltPlan, Sexp[]>();

export function isAllowed(plan: SeatbeltPlan, op: string, path: string): boolean {
  let forms = parsed.get(plan);
  if (!forms) {
    forms = readSbpl(plan.profile);
    parsed.set(plan, forms);
  }
  let allowed = false;
  for (const form of forms) {
    if (!isList(form) || (form[0] !== 'allow' && form[0] !== 'deny')) continue;
    const ops: string[] = [];
    const filters: Sexp[] = [];
    for (const part of form.slice(1)) {
      if (typeof part === 'string') ops.push(part);
      else if (!(isList(part) && part[0] === 'with')) filters.push(part); // (with message ...) is a modifier
    }
    if (!ops.some((p) => opMatches(p, op))) continue;
    if (filters.length > 0 && !filters.some((f) => filterMatches(f, path, plan.params))) continue;
    allowed = form[0] === 'allow';
  }
  return allowed;
}

/** System paths the generated network section names as text (not user paths). */
const STATIC_GENERATED_PATHS = ['/private/var/run/mDNSResponder'];

/** Problems with a plan's SBPL and arguments; empty when it is well-formed. */
export function checkSeatbeltPlan(
  plan: SeatbeltPlan,
  policyPaths: readonly string[],
  base: string,
): string[] {
  const problems: string[] = [];
  let forms: Sexp[];
  try {
    forms = readSbpl(plan.profile);
  } catch (error) {
    return [`profile does not parse: ${(error as Error).message}`];
  }
  const [p, profile] = plan.args;
  if (p !== '-p' || profile !== plan.profile) problems.push('args do not start with -p PROFILE');
  const sep = plan.args.indexOf('--');
  const defines = plan.args.slice(2, sep);
  const defined = new Map<string, string>();
  for (const d of defines) {
    const m = /^-D([A-Z][A-Z0-9_]*)=([\s\S]+)$/.exec(d);
    if (!m) problems.push(`bad define ${JSON.stringify(d)}`);
    else defined.set(m[1]!, m[2]!);
  }
  for (const name of new Set(paramRefs(forms)))
    if (!defined.has(name)) problems.push(`(param "${name}") has no -D${name}=`);
  for (const [name, v] of defined) {
    if (!paramRefs(forms).includes(name)) problems.push(`-D${name} is never used`);
    if (plan.params[name] !== v) problems.push(`params.${name} differs from -D${name}`);
  }
  if (!plan.profile.startsWith(base)) problems.push('profile does not start with the static base');
  const generated = readSbpl(plan.profile.slice(base.length));
  for (const s of stringLiterals(generated))
    if (s.startsWith('/') && !STATIC_GENERATED_PATHS.includes(s))
      problems.push(`raw path in the generated rules: ${JSON.stringify(s)}`);
  const literals = new Set(stringLiterals(forms));
  for (const path of policyPaths) if (literals.has(path)) problems.push(`policy path spliced: ${path}`);
  // Documented order: the base, allows of each kind, the unlink guard, sockets and network,
  // TIOCSTI last.
  const heads = forms.filter(isList).map((f) => `${f[0]} ${typeof f[1] === 'string' ? f[1] : ''}`);
  const last = heads[heads.length - 1];
  if (last !== 'deny file-ioctl') problems.push(`last rule is not the TIOCSTI deny: ${last}`);
  const denies = heads.filter((h) => h.startsWith('deny '));
  const expectedDenies = [
    'deny default',
    'deny mach-lookup',
    ...(denies.includes('deny file-clone') ? ['deny file-clone'] : []),
    ...(denies.includes('deny file-write-unlink') ? ['deny file-write-unlink'] : []),
    'deny network-outbound',
    'deny network-bind',
    'deny file-ioctl',
  ];
  if (JSON.stringify(denies) !== JSON.stringify(expectedDenies))
    problems.push(`unexpected denies: ${denies.join(', ')}`);
  const order = [
    'allow file-read-metadata',
    'allow file-read*',
    'allow process-exec',
    'allow file-write*',
    'allow file-link',
    'allow file-clone',
    'deny file-clone',
    'deny file-write-unlink',
    'network',
    'deny file-ioctl',
  ];
  const genHeads = generated.filter(isList).map((f) => `${f[0]} ${typeof f[1] === 'string' ? f[1] : ''}`);
  let at = 0;
  for (const h of genHeads) {
    const inNetwork = at === order.indexOf('network') && h !== 'deny file-ioctl';
    const idx = inNetwork || /network-/.test(h) ? order.indexOf('network') : order.indexOf(h);
    if (idx === -1) problems.push(`rule ${h} is not in the documented order`);
    else if (idx < at) problems.push(`rule ${h} out of the documented order`);
    at = Math.max(at, idx);
  }
  if (sep === -1 || plan.executable !== '/usr/bin/sandbox-exec')
    problems.push('not /usr/bin/sandbox-exec ... --');
  return problems;
}
