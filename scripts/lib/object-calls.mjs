// What a driver calls on the objects D hands it (tables, variables, external devices, SNMP
// sessions, backups, timers, and the callback arguments of D.device.* calls: HTTP errors,
// responses and bodies, SSH / Telnet / SNMP / WinRM outputs), found in its syntax tree
// (TypeScript's parser, reading the driver as JavaScript; nothing is run). A name is followed
// from where it is given one of these objects (`var t = D.createTable(…)`, `this.session =
// D.device.createSNMPSession()`, a callback's parameters, a named function passed as the
// callback) through plain aliases (`var u = t`), in its own function scope; every call
// `name.member(…)` / `name.a.b(…)` on it is listed with its kind. scripts/corpus-check.mjs
// compares the list with what the runtime's objects really have (scripts/lib/member-catalog.mjs).
import ts from 'typescript';

/** Calls that make an object of a kind, by the callee's dotted path (`*.` : any object before it). */
const FACTORIES = [
  ['D.createTable', 'table'],
  ['D.createExternalDevice', 'externalDevice'],
  ['D.device.createSNMPSession', 'snmpSession'],
  ['*.createSNMPSession', 'snmpSession'],
  ['D.createVariable', 'variable'],
  ['D.device.createVariable', 'variable'],
  ['D.createMetric', 'variable'],
  ['D.createBackup', 'backup'],
  ['setTimeout', 'timer'],
  ['setInterval', 'timer'],
  ['D.q.defer', 'deferred'],
];

/** Calls whose callback's parameters are objects of D: callee path → kinds of the parameters in order. */
const CALLBACKS = [
  [/^(D\.device|\*)\.http\.(get|post|put|delete)$/, ['httpError', 'httpResponse', 'httpBody']],
  [/^(D\.device|\*)\.http\.getTLSCertificate$/, ['httpError', 'certificate']],
  [/^(D\.device|\*)\.sendSSHCommand$/, ['sshOutput', 'sshError']],
  [/^(D\.device|\*)\.sendSSHCommands$/, ['sshOutputs', 'sshError']],
  [/^(D\.device|\*)\.sendTelnetCommand$/, ['telnetOutput', 'telnetError']],
  [/^(D\.device|\*)\.sendWinRMCommand$/, ['winrmOutput']],
  [/^snmpSession\.(get|walk|set)$/, ['snmpOutput', 'snmpError']],
];

const isFunction = (node) => ts.isFunctionDeclaration(node) || ts.isFunctionExpression(node) || ts.isArrowFunction(node) || ts.isMethodDeclaration(node);

/** `a.b.c` of an identifier / this / property chain; null for anything else. */
function pathOf(node) {
  if (ts.isIdentifier(node)) return node.text;
  if (node.kind === ts.SyntaxKind.ThisKeyword) return 'this';
  if (ts.isPropertyAccessExpression(node)) {
    const base = pathOf(node.expression);
    return base === null ? null : `${base}.${node.name.text}`;
  }
  if (ts.isParenthesizedExpression(node)) return pathOf(node.expression);
  return null;
}

/** The nearest enclosing function (or the file): where a `var` or a parameter lives. */
function scopeOf(node) {
  for (let n = node.parent; n; n = n.parent) if (isFunction(n) || ts.isSourceFile(n)) return n;
  return node.getSourceFile();
}

/**
 * The calls on D's objects in `source`: [{ kind, member, line }] (member: the path after the
 * object, `insertRecord` or `http.get`), each call once, in source order.
 */
export function objectCalls(source, fileName = 'driver.js') {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  // Names each scope declares (var/let/const/function/parameters), to find where a name lives.
  const declared = new Map();
  const declare = (scope, name) => {
    let names = declared.get(scope);
    if (!names) declared.set(scope, (names = new Set()));
    names.add(name);
  };
  const functionsByName = new Map();
  const visitDeclarations = (node) => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name)) {
      declare(scopeOf(node), node.name.text);
      if (node.initializer && (ts.isFunctionExpression(node.initializer) || ts.isArrowFunction(node.initializer))) functionsByName.set(node.name.text, node.initializer);
    } else if (ts.isFunctionDeclaration(node) && node.name) {
      declare(scopeOf(node), node.name.text);
      functionsByName.set(node.name.text, node);
    } else if (ts.isParameter(node) && ts.isIdentifier(node.name)) {
      declare(node.parent, node.name.text);
    }
    ts.forEachChild(node, visitDeclarations);
  };
  visitDeclarations(file);

  /** The scope that holds `name` seen from `node` (the file when none declares it). */
  const holder = (node, name) => {
    for (let scope = scopeOf(node); ; scope = scopeOf(scope)) {
      if (declared.get(scope)?.has(name) || ts.isSourceFile(scope)) return scope;
    }
  };
  // Kinds by [scope, name]; paths with dots (this.t, Kube.session) by their text, file-wide.
  const kinds = new Map();
  const scopeIds = new Map();
  const scopeId = (scope) => {
    if (!scopeIds.has(scope)) scopeIds.set(scope, scopeIds.size);
    return scopeIds.get(scope);
  };
  const keyOf = (node, path) => {
    const root = path.split('.')[0];
    return path.includes('.') || root === 'this' ? `*:${path}` : `${scopeId(holder(node, root))}:${path}`;
  };
  const setKind = (node, path, kind) => {
    const key = keyOf(node, path);
    if (kinds.get(key) === kind) return false;
    kinds.set(key, kind);
    return true;
  };
  const kindOfPath = (node, path) => kinds.get(keyOf(node, path)) ?? null;

  const calleePattern = (node, callee) => {
    // `x.createSNMPSession` / `x.http.get` on an external device reads as `*.…`; on a session as `snmpSession.…`.
    const path = pathOf(callee);
    if (path === null) {
      if (ts.isPropertyAccessExpression(callee)) {
        const kind = kindOf(callee.expression);
        return kind ? `${kind}.${callee.name.text}` : null;
      }
      return null;
    }
    if (path.startsWith('D.')) return path;
    const parts = path.split('.');
    for (let i = parts.length - 1; i >= 1; i--) {
      const kind = kindOfPath(node, parts.slice(0, i).join('.'));
      if (kind === 'externalDevice') return `*.${parts.slice(i).join('.')}`;
      if (kind) return `${kind}.${parts.slice(i).join('.')}`;
    }
    return path;
  };

  function kindOf(expr) {
    if (!expr) return null;
    if (ts.isParenthesizedExpression(expr)) return kindOf(expr.expression);
    if (ts.isCallExpression(expr)) {
      const pattern = calleePattern(expr, expr.expression);
      if (pattern === null) return null;
      for (const [factory, kind] of FACTORIES) {
        if (factory === pattern) return kind;
        if (factory.startsWith('*.') && (pattern === factory || pattern.endsWith(factory.slice(1)))) return kind;
      }
      return null;
    }
    const path = pathOf(expr);
    return path === null ? null : kindOfPath(expr, path);
  }

  /** The function a callback argument names: an inline one, or a function declared by that name. */
  const callbackOf = (call) => {
    for (let i = call.arguments.length - 1; i >= 0; i--) {
      const arg = call.arguments[i];
      if (ts.isFunctionExpression(arg) || ts.isArrowFunction(arg)) return arg;
      if (ts.isIdentifier(arg) && functionsByName.has(arg.text)) return functionsByName.get(arg.text);
      if (ts.isCallExpression(arg) && ts.isPropertyAccessExpression(arg.expression) && arg.expression.name.text === 'bind') {
        const bound = arg.expression.expression;
        if (ts.isFunctionExpression(bound)) return bound;
        if (ts.isIdentifier(bound) && functionsByName.has(bound.text)) return functionsByName.get(bound.text);
      }
    }
    return null;
  };

  // Kinds spread through assignments and callbacks: a few passes reach a fixed point on real drivers.
  const track = (node) => {
    let changed = false;
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer) {
      const kind = kindOf(node.initializer);
      if (kind) changed = setKind(node, node.name.text, kind) || changed;
    } else if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.EqualsToken) {
      const target = pathOf(node.left);
      const kind = target && kindOf(node.right);
      if (kind) changed = setKind(node, target, kind) || changed;
    } else if (ts.isPropertyAssignment(node) && ts.isObjectLiteralExpression(node.parent)) {
      // var Kube = { table: D.createTable(…) }: Kube.table.
      const owner = node.parent.parent;
      if (ts.isVariableDeclaration(owner) && ts.isIdentifier(owner.name) && (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name))) {
        const kind = kindOf(node.initializer);
        if (kind) changed = setKind(owner, `${owner.name.text}.${node.name.text}`, kind) || changed;
      }
    } else if (ts.isCallExpression(node)) {
      const pattern = calleePattern(node, node.expression);
      const entry = pattern && CALLBACKS.find(([re]) => re.test(pattern));
      const fn = entry && callbackOf(node);
      if (fn) {
        entry[1].forEach((kind, i) => {
          const param = fn.parameters[i];
          if (param && ts.isIdentifier(param.name)) changed = setKind(param.name, param.name.text, kind) || changed;
        });
      }
    }
    ts.forEachChild(node, (child) => {
      changed = track(child) || changed;
    });
    return changed;
  };
  for (let pass = 0; pass < 4 && track(file); pass++);

  const calls = [];
  const seen = new Set();
  const visitCalls = (node) => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      // The longest object prefix with a kind: t.insertRecord → table + insertRecord; ext.http.get → externalDevice + http.get.
      const chain = [];
      let object = node.expression;
      while (ts.isPropertyAccessExpression(object)) {
        chain.unshift(object.name.text);
        object = object.expression;
        const kind = kindOf(object);
        if (kind) {
          const line = file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;
          const key = `${kind}:${chain.join('.')}:${line}`;
          if (!seen.has(key)) {
            seen.add(key);
            calls.push({ kind, member: chain.join('.'), line });
          }
          break;
        }
      }
    }
    ts.forEachChild(node, visitCalls);
  };
  visitCalls(file);
  return calls;
}

const BUILTIN_ROOTS = new Set(['D', 'console', 'Math', 'JSON', 'Object', 'Array', 'String', 'Number', 'Date', 'Promise', 'RegExp', 'Boolean', 'parseInt', 'parseFloat']);
const PROTOTYPE_NAMES = new Set(
  [String.prototype, Array.prototype, Object.prototype, Number.prototype, Function.prototype, Date.prototype, Promise.prototype, RegExp.prototype]
    .flatMap((p) => Object.getOwnPropertyNames(p)),
);

/**
 * What the driver reads and names, for a generic device to answer with: `properties`, the
 * property names it reads off data (`data.items`, `row["name"]`; not D's, not built-in
 * methods), `strings`, its string literals, and `ports`, the numbers that can be a port (number literals, `:8443` in texts).
 */
export function driverWords(source, fileName = 'driver.js') {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const properties = new Set();
  const strings = new Set();
  const ports = new Set();
  const visit = (node) => {
    if (ts.isPropertyAccessExpression(node)) {
      const root = pathOf(node.expression)?.split('.')[0];
      const name = node.name.text;
      const called = ts.isCallExpression(node.parent) && node.parent.expression === node;
      if (!BUILTIN_ROOTS.has(root ?? '') && !PROTOTYPE_NAMES.has(name) && !called) properties.add(name);
    } else if (ts.isElementAccessExpression(node) && ts.isStringLiteralLike(node.argumentExpression)) {
      properties.add(node.argumentExpression.text);
    } else if (ts.isStringLiteralLike(node)) {
      if (node.text.length <= 300) strings.add(node.text);
    } else if (ts.isNumericLiteral(node)) {
      // Any number that can be a port: mapping one the driver never dials costs nothing.
      const n = Number(node.text);
      if (Number.isInteger(n) && n >= 80 && n < 65536) ports.add(n);
    }
    // A port in a URL literal: 'https://' + host + ':8443/api'.
    if (ts.isStringLiteralLike(node)) for (const m of node.text.matchAll(/:(\d{2,5})(?=[/?]|$)/g)) ports.add(Number(m[1]));
    ts.forEachChild(node, visit);
  };
  visit(file);
  return { properties: [...properties], strings: [...strings], ports: [...ports].filter((p) => p > 0 && p < 65536) };
}
