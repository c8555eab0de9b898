// The parsed template (the reference's own parser, so whitespace control and syntax errors are
// its) turned once into a tree of closures over plain values. A construct outside the supported
// subset compiles to a closure that gives up when reached, so the reference renders just the
// requests that reach it.

import { BARE_FILTERS, CALL_FILTERS, LITERAL_ARGUMENT_FILTERS } from './filters.js';
import { GLOBALS } from './globals.js';
import { callMember, callValue, member } from './members.js';
import { BINARY_OPERATORS, binary, unary } from './operators.js';
import { TESTS } from './tests.js';
import {
  type CallArgs,
  isDict,
  isInteger,
  isTuple,
  JinjaFunction,
  makeTuple,
  Namespace,
  notReproduced,
  own,
  Scope,
  toText,
  truthy,
} from './values.js';

/** The fields of the reference's AST nodes that the compiler reads. */
export interface AstNode {
  type: string;
  value?: unknown;
  body?: AstNode[];
  alternate?: AstNode[];
  test?: AstNode;
  loopvar?: AstNode;
  iterable?: AstNode;
  defaultBlock?: AstNode[];
  assignee?: AstNode;
  name?: AstNode;
  args?: AstNode[];
  object?: AstNode;
  property?: AstNode;
  computed?: boolean;
  callee?: AstNode;
  operator?: AstNode;
  left?: AstNode;
  right?: AstNode;
  argument?: AstNode;
  operand?: AstNode;
  filter?: AstNode;
  negate?: boolean;
  lhs?: AstNode;
  condition?: AstNode;
  trueExpr?: AstNode;
  falseExpr?: AstNode;
  start?: AstNode;
  stop?: AstNode;
  step?: AstNode;
  key?: AstNode;
}

type Expr = (scope: Scope) => unknown;
type Stmt = (scope: Scope) => string;

/** A part left to the reference: gives up when a render reaches it. */
function unsupported(what: string): () => never {
  return () => notReproduced(what);
}

/** Loop control, thrown like the reference does (so a partial iteration's text is dropped the same way). */
class LoopSignal {}
const BREAK = new LoopSignal();
const CONTINUE = new LoopSignal();

/** Names whose meaning depends on machinery left to the reference (macro varargs, call blocks). */
const RESERVED_NAMES = new Set(['kwargs', 'varargs', 'caller', '__proto__']);

export type CompiledTemplate = (context: Record<string, unknown>) => string;

export function compileProgram(program: AstNode): CompiledTemplate {
  const body = block(program.body ?? []);
  return (context) => {
    for (const key in context) {
      if (!own(context, key)) continue;
      // The reference refuses a context key that redeclares a global; a function would be called its way.
      if (GLOBALS.has(key) || typeof context[key] === 'function') notReproduced(`context key ${key}`);
    }
    return body(new Scope(GLOBALS, context));
  };
}

function block(nodes: AstNode[]): Stmt {
  const stmts = nodes.map(statement);
  if (stmts.length === 0) return () => '';
  if (stmts.length === 1) return stmts[0]!;
  return (scope) => {
    let out = '';
    for (const stmt of stmts) out += stmt(scope);
    return out;
  };
}

function statement(node: AstNode): Stmt {
  switch (node.type) {
    case 'StringLiteral': {
      const text = node.value as string;
      return () => text;
    }
    case 'Comment':
      return () => '';
    case 'If': {
      const test = expression(node.test!);
      const body = block(node.body!);
      const alternate = block(node.alternate ?? []);
      return (scope) => (truthy(test(scope)) ? body(scope) : alternate(scope));
    }
    case 'For':
      return forLoop(node);
    case 'Set':
      return setStatement(node);
    case 'Macro':
      return macroDefinition(node);
    case 'Break':
      return () => {
        throw BREAK;
      };
    case 'Continue':
      return () => {
        throw CONTINUE;
      };
    case 'CallStatement':
      return unsupported('call block');
    case 'FilterStatement': {
      const body = block(node.body!);
      const apply = filterOf(node.filter!);
      return (scope) => output(apply(body(scope), scope));
    }
    default: {
      const expr = expression(node);
      return (scope) => output(expr(scope));
    }
  }
}

/** What `{{ value }}` writes: nothing for none and undefined. */
function output(value: unknown): string {
  return value === null || value === undefined ? '' : toText(value);
}

type Bind = (scope: Scope, item: unknown) => void;

/** The loop target: one name, or a tuple of names unpacking each item. */
function loopTarget(node: AstNode): { bind: Bind; check(item: unknown): void } {
  const name = plainName(node);
  if (name !== null) return { bind: (scope, item) => scope.set(name, item), check: () => undefined };
  const names = targetNames(node);
  if (names === null) {
    const fail = unsupported(`loop target ${node.type}`);
    return { bind: fail, check: fail };
  }
  return {
    bind: (scope, item) => {
      const values = item as unknown[];
      for (let i = 0; i < names.length; i++) scope.set(names[i]!, values[i]);
    },
    check: (item) => {
      if (!Array.isArray(item) || isTuple(item) || item.length !== names.length) notReproduced('unpacking');
    },
  };
}

function forLoop(node: AstNode): Stmt {
  const target = loopTarget(node.loopvar!);
  const selected = node.iterable!.type === 'SelectExpression';
  const iterable = expression(selected ? node.iterable!.lhs! : node.iterable!);
  const filter = selected ? expression(node.iterable!.test!) : null;
  const body = block(node.body!);
  const otherwise = block(node.defaultBlock ?? []);
  return (scope) => {
    const loopScope = new Scope(scope);
    const source = iterable(loopScope);
    const all = Array.isArray(source) ? source : isDict(source) ? Object.keys(source) : notReproduced('for over a non-iterable');
    let items = all;
    if (filter || node.loopvar!.type !== 'Identifier') {
      items = [];
      for (const item of all) {
        target.check(item);
        if (filter) {
          const testScope = new Scope(loopScope);
          target.bind(testScope, item);
          if (!truthy(filter(testScope))) continue;
        }
        items.push(item);
      }
    }
    const n = items.length;
    let out = '';
    let noIteration = true;
    for (let i = 0; i < n; i++) {
      loopScope.set('loop', {
        index: i + 1,
        index0: i,
        revindex: n - i,
        revindex0: n - i - 1,
        first: i === 0,
        last: i === n - 1,
        length: n,
        previtem: i > 0 ? items[i - 1] : undefined,
        nextitem: i < n - 1 ? items[i + 1] : undefined,
      });
      target.bind(loopScope, items[i]);
      try {
        out += body(loopScope);
      } catch (err) {
        if (err === CONTINUE) continue;
        if (err === BREAK) break;
        throw err;
      }
      noIteration = false;
    }
    if (noIteration) out += otherwise(loopScope);
    return out;
  };
}

function setStatement(node: AstNode): Stmt {
  const value: Expr = node.value ? expression(node.value as AstNode) : block(node.body ?? []);
  const assignee = node.assignee!;
  const name = plainName(assignee);
  if (name !== null) {
    return (scope) => {
      scope.set(name, value(scope));
      return '';
    };
  }
  if (assignee.type === 'TupleLiteral') {
    const names = targetNames(assignee);
    if (names === null) return unsupported('set target');
    return (scope) => {
      const values = value(scope);
      if (!Array.isArray(values) || values.length !== names.length) notReproduced('set unpacking');
      for (let i = 0; i < names.length; i++) scope.set(names[i]!, values[i]);
      return '';
    };
  }
  if (assignee.type === 'MemberExpression' && assignee.property!.type === 'Identifier') {
    const object = expression(assignee.object!);
    const key = assignee.property!.value as string;
    return (scope) => {
      const rhs = value(scope);
      const target = object(scope);
      if (!(target instanceof Namespace)) notReproduced('attribute set on a non-namespace');
      target.entries.set(key, rhs);
      return '';
    };
  }
  return unsupported(`set target ${assignee.type}`);
}

interface Parameter {
  name: string;
  fallback: Expr | null;
}

function macroDefinition(node: AstNode): Stmt {
  const name = plainName(node.name!);
  const params = node.args!.map(parameter);
  if (name === null || params.includes(null)) return unsupported('macro signature');
  return defineMacro(name, params as Parameter[], block(node.body!));
}

function parameter(arg: AstNode): Parameter | null {
  if (arg.type === 'KeywordArgumentExpression') {
    const name = plainName(arg.key!);
    return name === null ? null : { name, fallback: expression(arg.value as AstNode) };
  }
  const name = plainName(arg);
  return name === null ? null : { name, fallback: null };
}

function defineMacro(name: string, params: Parameter[], body: Stmt): Stmt {
  // Macros see the caller's scope, as in the reference.
  const macro = new JinjaFunction((args, callerScope) => {
    const scope = new Scope(callerScope);
    const keywords = args.keywords ? new Map(args.keywords) : null;
    const pending: Parameter[] = [];
    for (let i = 0; i < params.length; i++) {
      const param = params[i]!;
      let value: unknown;
      let given = i < args.positional.length;
      if (given) value = args.positional[i];
      else if (keywords?.has(param.name)) {
        value = keywords.get(param.name);
        keywords.delete(param.name);
        given = true;
      }
      if (!given && param.fallback) pending.push(param);
      scope.set(param.name, value);
    }
    if ((keywords && keywords.size > 0) || args.positional.length > params.length) notReproduced('macro arguments');
    for (const param of pending) scope.set(param.name, param.fallback!(scope));
    return body(scope);
  });
  return (scope) => {
    scope.set(name, macro);
    return '';
  };
}

/** The name of an Identifier node that is not reserved, else null. */
function plainName(node: AstNode): string | null {
  if (node.type !== 'Identifier' || RESERVED_NAMES.has(node.value as string)) return null;
  return node.value as string;
}

/** The names of a tuple of plain names (`a, b`), else null. */
function targetNames(node: AstNode): string[] | null {
  if (node.type !== 'TupleLiteral') return null;
  const names = (node.value as AstNode[]).map(plainName);
  return names.includes(null) ? null : (names as string[]);
}

function expression(node: AstNode): Expr {
  switch (node.type) {
    case 'StringLiteral':
    case 'IntegerLiteral': {
      const value = node.value;
      return () => value;
    }
    case 'Identifier': {
      const name = plainName(node);
      if (name === null) return unsupported(`name ${String(node.value)}`);
      return (scope) => scope.get(name);
    }
    case 'ArrayLiteral': {
      const items = (node.value as AstNode[]).map(expression);
      return (scope) => items.map((item) => item(scope));
    }
    case 'TupleLiteral':
      return tupleLiteral(node.value as AstNode[]);
    case 'ObjectLiteral':
      return objectLiteral(node.value as Map<AstNode, AstNode>);
    case 'MemberExpression':
      return memberExpression(node);
    case 'CallExpression':
      return callExpression(node);
    case 'UnaryExpression': {
      const op = node.operator!.value as string;
      if (op !== 'not' && op !== '-' && op !== '+') return unsupported(`unary ${op}`);
      const argument = expression(node.argument!);
      return (scope) => unary(op, argument(scope));
    }
    case 'BinaryExpression':
      return binaryExpression(node);
    case 'FilterExpression': {
      const operand = expression(node.operand!);
      const apply = filterOf(node.filter!);
      return (scope) => apply(operand(scope), scope);
    }
    case 'TestExpression': {
      const test = TESTS.get(node.test!.value as string);
      if (!test) return unsupported(`test ${String(node.test!.value)}`);
      const operand = expression(node.operand!);
      const negate = node.negate === true;
      return (scope) => test(operand(scope)) !== negate;
    }
    case 'SelectExpression': {
      const test = expression(node.test!);
      const lhs = expression(node.lhs!);
      return (scope) => (truthy(test(scope)) ? lhs(scope) : undefined);
    }
    case 'Ternary': {
      const condition = expression(node.condition!);
      const yes = expression(node.trueExpr!);
      const no = expression(node.falseExpr!);
      return (scope) => (truthy(condition(scope)) ? yes(scope) : no(scope));
    }
    default:
      return unsupported(`expression ${node.type}`);
  }
}

function tupleLiteral(nodes: AstNode[]): Expr {
  const items = nodes.map(expression);
  if (nodes.every((n) => n.type === 'StringLiteral' || n.type === 'IntegerLiteral')) {
    // A constant tuple (`x in ('a', 'b')`) is built once: nothing mutates a tuple.
    const constant = makeTuple(nodes.map((n) => n.value));
    return () => constant;
  }
  return (scope) => makeTuple(items.map((item) => item(scope)));
}

function objectLiteral(entries: Map<AstNode, AstNode>): Expr {
  const pairs = [...entries].map(([key, value]) => [expression(key), expression(value)] as const);
  return (scope) => {
    const dict: Record<string, unknown> = {};
    for (const [key, value] of pairs) {
      const name = key(scope);
      // Integer-like keys would reorder in a plain object (the reference keeps insertion order).
      if (typeof name !== 'string' || /^\d+$/.test(name) || name === '__proto__') notReproduced('object literal key');
      dict[name] = value(scope);
    }
    return dict;
  };
}

function memberExpression(node: AstNode): Expr {
  const object = expression(node.object!);
  const property = node.property!;
  if (node.computed && property.type === 'SliceExpression') {
    const bound = (n: AstNode | undefined): Expr => (n ? expression(n) : () => undefined);
    const start = bound(property.start);
    const stop = bound(property.stop);
    const step = bound(property.step);
    return (scope) => sliceOf(object(scope), start(scope), stop(scope), step(scope));
  }
  if (node.computed) {
    const key = expression(property);
    return (scope) => member(object(scope), key(scope));
  }
  const key = property.value;
  return (scope) => member(object(scope), key);
}

function sliceBound(bound: unknown): boolean {
  return bound === undefined || isInteger(bound);
}

function sliceOf(value: unknown, start: unknown, stop: unknown, step: unknown): unknown {
  if (!sliceBound(start) || !sliceBound(stop) || !sliceBound(step)) notReproduced('slice bound');
  if (step === 0) return notReproduced('slice step 0');
  if (Array.isArray(value)) return pySlice(value, start as number | undefined, stop as number | undefined, (step as number | undefined) ?? 1);
  if (typeof value === 'string') {
    return pySlice(Array.from(value), start as number | undefined, stop as number | undefined, (step as number | undefined) ?? 1).join('');
  }
  return notReproduced('slice of a non-sequence');
}

/** Python slicing as the reference computes it (including its reading of an explicit -1 stop going backwards). */
function pySlice<T>(items: T[], start: number | undefined, stop: number | undefined, step: number): T[] {
  const len = items.length;
  let from: number;
  let to: number;
  if (step > 0) {
    from = start === undefined ? 0 : start < 0 ? Math.max(len + start, 0) : Math.min(start, len);
    to = stop === undefined ? len : stop < 0 ? Math.max(len + stop, 0) : Math.min(stop, len);
  } else {
    from = start === undefined ? len - 1 : start < 0 ? Math.max(len + start, -1) : Math.min(start, len - 1);
    to = stop === undefined ? -1 : stop < -1 ? Math.max(len + stop, -1) : Math.min(stop, len - 1);
  }
  const out: T[] = [];
  const dir = Math.sign(step);
  for (let i = from; dir * i < dir * to; i += step) out.push(items[i]!);
  return out;
}

type Args = (scope: Scope) => CallArgs;

function callArguments(nodes: AstNode[]): Args {
  const positional: Expr[] = [];
  const keywords: [string, Expr][] = [];
  for (const node of nodes) {
    if (node.type === 'KeywordArgumentExpression') {
      const key = node.key!.value as string;
      if (keywords.some(([k]) => k === key)) return unsupported('repeated keyword argument');
      keywords.push([key, expression(node.value as AstNode)]);
    } else {
      positional.push(expression(node));
    }
  }
  if (keywords.length === 0) return (scope) => ({ positional: evaluateAll(positional, scope), keywords: null });
  return (scope) => {
    const values = evaluateAll(positional, scope);
    // Filled key by key: no array of pairs per call on the way to the map.
    const byName = new Map<string, unknown>();
    for (let i = 0; i < keywords.length; i++) byName.set(keywords[i]![0], keywords[i]![1](scope));
    return { positional: values, keywords: byName };
  };
}

function evaluateAll(exprs: readonly Expr[], scope: Scope): unknown[] {
  const values: unknown[] = [];
  for (let i = 0; i < exprs.length; i++) values.push(exprs[i]!(scope));
  return values;
}

function callExpression(node: AstNode): Expr {
  const args = callArguments(node.args!);
  const callee = node.callee!;
  if (callee.type === 'MemberExpression' && !callee.computed && callee.property!.type === 'Identifier') {
    const object = expression(callee.object!);
    const name = callee.property!.value as string;
    return (scope) => {
      const values = args(scope);
      return callMember(object(scope), name, values, scope);
    };
  }
  const fn = expression(callee);
  return (scope) => {
    const values = args(scope);
    return callValue(fn(scope), values, scope);
  };
}

function binaryExpression(node: AstNode): Expr {
  const op = node.operator!.value as string;
  const left = expression(node.left!);
  const right = expression(node.right!);
  if (op === 'and') {
    return (scope) => {
      const l = left(scope);
      return truthy(l) ? right(scope) : l;
    };
  }
  if (op === 'or') {
    return (scope) => {
      const l = left(scope);
      return truthy(l) ? l : right(scope);
    };
  }
  if (!BINARY_OPERATORS.has(op)) return unsupported(`operator ${op}`);
  return (scope) => binary(op, left(scope), right(scope));
}

type Apply = (value: unknown, scope: Scope) => unknown;

function filterOf(node: AstNode): Apply {
  if (node.type === 'Identifier') {
    const name = node.value as string;
    const bare = BARE_FILTERS.get(name);
    if (!bare) return unsupported(`filter ${name}`);
    return (value) => bare(value);
  }
  if (node.type !== 'CallExpression' || node.callee!.type !== 'Identifier') return unsupported('filter form');
  const name = node.callee!.value as string;
  const called = CALL_FILTERS.get(name);
  if (!called) return unsupported(`filter ${name}()`);
  if (LITERAL_ARGUMENT_FILTERS.has(name) && !node.args!.every((a) => a.type === 'StringLiteral')) {
    return unsupported(`${name} with non-literal arguments`);
  }
  const args = callArguments(node.args!);
  return (value, scope) => called(value, args(scope));
}
