// The completions of the console's driver editor, from the project's own declarations of D
// (types/driver.d.ts) read with the TypeScript compiler API at build time: for `D` and each of
// its members whose type is declared there (D.device, D.device.http, D.errorType…), the members
// with their kind, signature and doc comment. scripts/build-console.mjs bundles the answer as the
// module `driverbox:d-members`, so the editor's completions cannot drift from the declarations.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** How deep member paths go: D.device.http.get is depth 3. */
const MAX_DEPTH = 3;

/**
 * @typedef {{ label: string, type: 'method' | 'property' | 'constant', detail: string, info: string }} DMember
 * @returns {Record<string, DMember[]>} member path ("D", "D.device"…) → its members, sorted by name
 */
export function dCompletions(file = path.join(root, 'types/driver.d.ts')) {
  const program = ts.createProgram([file], { noEmit: true, lib: ['lib.es2020.d.ts'], types: [], skipLibCheck: true });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  if (!source) throw new Error(`${file} could not be read`);
  const declaredHere = (type) => (type.getSymbol()?.getDeclarations() ?? []).some((d) => d.getSourceFile() === source);

  /** @type {Record<string, DMember[]>} */
  const out = {};
  const walk = (type, at, depth) => {
    const members = [];
    for (const symbol of checker.getPropertiesOfType(type)) {
      const name = symbol.getName();
      const declaration = symbol.valueDeclaration ?? symbol.getDeclarations()?.[0];
      if (!declaration) continue;
      const memberType = checker.getTypeOfSymbolAtLocation(symbol, declaration);
      const signatures = memberType.getCallSignatures();
      const readonly = (ts.getCombinedModifierFlags(declaration) & ts.ModifierFlags.Readonly) !== 0;
      const detail = signatures.length
        ? `${checker.signatureToString(signatures[0], declaration, ts.TypeFormatFlags.NoTruncation)}${signatures.length > 1 ? ` (+${signatures.length - 1} overload${signatures.length > 2 ? 's' : ''})` : ''}`
        : checker.typeToString(memberType, declaration, ts.TypeFormatFlags.NoTruncation);
      const info = ts.displayPartsToString(symbol.getDocumentationComment(checker)).trim();
      const isEnumLike = /^(errorType|valueType)$/.test(name);
      members.push({ label: name, type: signatures.length ? 'method' : isEnumLike || readonly ? 'constant' : 'property', detail: detail.length > 160 ? `${detail.slice(0, 157)}…` : detail, info });
      if (!signatures.length && depth < MAX_DEPTH && declaredHere(memberType)) walk(memberType, `${at}.${name}`, depth + 1);
    }
    members.sort((a, b) => a.label.localeCompare(b.label));
    if (members.length) out[at] = members;
  };
  const d = source.statements
    .filter(ts.isVariableStatement)
    .flatMap((s) => s.declarationList.declarations)
    .find((v) => ts.isIdentifier(v.name) && v.name.text === 'D');
  if (!d) throw new Error(`${file} declares no global D`);
  walk(checker.getTypeAtLocation(d), 'D', 1);
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const members = dCompletions();
  for (const [at, list] of Object.entries(members)) console.log(`${at}: ${list.map((m) => m.label).join(', ')}`);
}
