// Type-aware renames with TypeScript's language service: each rule names a declaration
// (file + symbol path like "Interface.member" or "fn") and its new name; every reference in the
// project (tsconfig.json's include) is renamed, strings and comments left alone.
// Usage: node rename.ts <project-root> <rules.json>
//   rules: [{ "file": "src/x.ts", "symbol": "Foo.bar", "to": "baz" }, ...]
import ts from 'typescript';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const [root = '.', rulesFile = ''] = process.argv.slice(2);
const rules = JSON.parse(readFileSync(rulesFile, 'utf8')) as { file: string; symbol: string; to: string }[];
const cfgPath = join(resolve(root), 'tsconfig.json');
const cfg = ts.getParsedCommandLineOfConfigFile(cfgPath, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => { throw new Error(String(d.messageText)); } });
if (!cfg) throw new Error('no config');
const texts = new Map<string, string>();
const versions = new Map<string, number>();
const read = (f: string) => { if (!texts.has(f)) texts.set(f, ts.sys.readFile(f) ?? ''); return texts.get(f)!; };
const host: ts.LanguageServiceHost = {
  getScriptFileNames: () => cfg.fileNames,
  getScriptVersion: (f) => String(versions.get(f) ?? 0),
  getScriptSnapshot: (f) => (ts.sys.fileExists(f) || texts.has(f) ? ts.ScriptSnapshot.fromString(read(f)) : undefined),
  getCurrentDirectory: () => resolve(root),
  getCompilationSettings: () => cfg.options,
  getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
  fileExists: ts.sys.fileExists, readFile: ts.sys.readFile, readDirectory: ts.sys.readDirectory,
  directoryExists: ts.sys.directoryExists, getDirectories: ts.sys.getDirectories,
};
const ls = ts.createLanguageService(host, ts.createDocumentRegistry());

function findDecl(sf: ts.SourceFile, path: string[]): ts.Node | undefined {
  let found: ts.Node | undefined;
  const visit = (node: ts.Node, depth: number): void => {
    if (found) return;
    const name = (node as { name?: ts.Node }).name;
    if (name && (ts.isIdentifier(name) || ts.isStringLiteral(name)) && name.text === path[depth]) {
      if (depth === path.length - 1) { found = name; return; }
      ts.forEachChild(node, (c) => visit(c, depth + 1));
      return;
    }
    if (ts.isVariableStatement(node) || ts.isVariableDeclarationList(node) || ts.isTypeLiteralNode(node) || ts.isTypeAliasDeclaration(node) && depth > 0 || ts.isIntersectionTypeNode(node) || ts.isUnionTypeNode(node) || ts.isModuleBlock(node) || ts.isSourceFile(node) || ts.isObjectLiteralExpression(node) && depth > 0) {
      ts.forEachChild(node, (c) => visit(c, depth));
      return;
    }
    if (depth === 0 && ts.isSourceFile(node.parent)) return;
    if (depth > 0) ts.forEachChild(node, (c) => visit(c, depth));
  };
  ts.forEachChild(sf, (c) => visit(c, 0));
  return found;
}

let total = 0;
for (const r of rules) {
  const file = resolve(root, r.file);
  const program = ls.getProgram()!;
  const sf = program.getSourceFile(file);
  if (!sf) { console.error(`no file ${r.file}`); process.exitCode = 1; continue; }
  const decl = findDecl(sf, r.symbol.split('.'));
  if (!decl) { console.error(`no symbol ${r.symbol} in ${r.file}`); process.exitCode = 1; continue; }
  // Without prefix/suffix text every reference is found, importers and re-exports included, so a
  // public name changes everywhere (with it, TypeScript would keep the old name through an alias in
  // export specifiers). A shorthand property or a destructuring then renames its local variable
  // too, uses included, which keeps the code consistent; a clash with another local of the new
  // name shows in the type-check.
  const found = ls.findRenameLocations(file, decl.getStart(sf), false, false, { providePrefixAndSuffixTextForRename: false }) ?? [];
  // A shorthand property in an object literal (`{ log }`) names a local that is not renamed: it
  // becomes `{ logger: log }`.
  const shorthand = (l: ts.RenameLocation): string | undefined => {
    const s = ls.getProgram()!.getSourceFile(l.fileName);
    if (!s) return undefined;
    // The innermost node at the location, with its parent (parent pointers are not always set).
    let hit: { node: ts.Node; parent: ts.Node } | undefined;
    const walk = (n: ts.Node, parent: ts.Node): void => {
      if (n.getStart(s) <= l.textSpan.start && l.textSpan.start < n.getEnd()) {
        hit = { node: n, parent };
        ts.forEachChild(n, (c) => walk(c, n));
      }
    };
    ts.forEachChild(s, (c) => walk(c, s));
    return hit !== undefined && ts.isShorthandPropertyAssignment(hit.parent) && hit.parent.name === hit.node ? hit.node.getText(s) : undefined;
  };
  const locs: ts.RenameLocation[] = found.map((l) => {
    const old = shorthand(l);
    return old === undefined ? l : { ...l, prefixText: '', suffixText: `: ${old}` };
  });
  const byFile = new Map<string, ts.RenameLocation[]>();
  for (const l of locs) { const a = byFile.get(l.fileName) ?? []; a.push(l); byFile.set(l.fileName, a); }
  for (const [f, ls_] of byFile) {
    if (f.includes('node_modules')) continue;
    let text = read(f);
    for (const l of [...ls_].sort((a, b) => b.textSpan.start - a.textSpan.start)) {
      text = text.slice(0, l.textSpan.start) + (l.prefixText ?? '') + r.to + (l.suffixText ?? '') + text.slice(l.textSpan.start + l.textSpan.length);
    }
    texts.set(f, text);
    versions.set(f, (versions.get(f) ?? 0) + 1);
    writeFileSync(f, text);
  }
  total += locs.length;
  console.log(`${r.file} ${r.symbol} -> ${r.to}: ${locs.length} places in ${byFile.size} files`);
}
console.log(`total ${total}`);
