// Call-shape rewrites the rename codemod cannot do (issue 25, verbs): status writes become the verb
// sinks with `subresource: 'status'`.
//   applyStatus(ctx, { ... })            -> apply(ctx, { ..., subresource: 'status' })
//   patchStatus(ctx, { ..., status: X }) -> patch(ctx, { ..., subresource: 'status', patch: { status: X } })
// Import specifiers follow (`applyStatus` dropped when `apply` is imported, else renamed; `patchStatus`
// becomes `patch`, or `patch as patchSink` when the file already declares a `patch` of its own).
//
// Mode `providers` (issue 25, one options object per provider factory; run in step 05):
//   apiExportProvider(opts, 'name')            -> apiExportProvider({ ...opts, exportName: 'name' })
//   initializingWorkspaceProvider(opts, 'type') -> initializingWorkspaceProvider({ ...opts, workspaceType: 'type' })
// (an object literal `opts` gets the property inside it).
// Usage: node calls.ts <project-root> [status|providers]   (default `status`; files of tsconfig.json's
// include; prints every file changed and every call it could not rewrite, which is then a hand edit).
import ts from 'typescript';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const [root = '.', mode = 'status'] = process.argv.slice(2);
const positional: Readonly<Record<string, string>> = { apiExportProvider: 'exportName', initializingWorkspaceProvider: 'workspaceType' };
const cfg = ts.getParsedCommandLineOfConfigFile(join(resolve(root), 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => { throw new Error(String(d.messageText)); } });
if (!cfg) throw new Error('no config');

interface Edit { start: number; end: number; text: string }
let changed = 0;
if (mode === 'providers') {
  for (const file of cfg.fileNames) {
    const text = readFileSync(file, 'utf8');
    if (file.includes('/src/providers/kcp/') || !/\b(apiExportProvider|initializingWorkspaceProvider)\(/.test(text)) continue;
    const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const edits: Edit[] = [];
    const visit = (n: ts.Node): void => {
      if (ts.isCallExpression(n) && ts.isIdentifier(n.expression) && n.expression.text in positional && n.arguments.length === 2) {
        const [opts, second] = n.arguments as unknown as [ts.Expression, ts.Expression];
        const prop = `${positional[n.expression.text]}: ${second.getText(sf)}`;
        const inner = ts.isObjectLiteralExpression(opts)
          ? `{ ${[...opts.properties.map((p) => p.getText(sf)), prop].join(', ')} }`
          : `{ ...${opts.getText(sf)}, ${prop} }`;
        edits.push({ start: opts.getStart(sf), end: second.getEnd(), text: inner });
        return;
      }
      ts.forEachChild(n, visit);
    };
    visit(sf);
    if (edits.length === 0) continue;
    let out = text;
    for (const e of edits.sort((a, b) => b.start - a.start)) out = out.slice(0, e.start) + e.text + out.slice(e.end);
    writeFileSync(file, out);
    changed++;
    console.log(`${file}: ${edits.length} edits`);
  }
  console.log(`files changed: ${changed}`);
  process.exit(0);
}
for (const file of cfg.fileNames) {
  const text = readFileSync(file, 'utf8');
  // The sinks define these functions: their own files are hand edits.
  if (file.includes('/src/sinks/') || !/\b(applyStatus|patchStatus)(Each)?\b/.test(text)) continue;
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const edits: Edit[] = [];
  // Does the file declare its own `patch` (a variable, parameter, function) besides the import?
  let ownPatch = false;
  const scan = (n: ts.Node): void => {
    if ((ts.isVariableDeclaration(n) || ts.isParameter(n) || ts.isFunctionDeclaration(n) || ts.isBindingElement(n)) && n.name && ts.isIdentifier(n.name) && n.name.text === 'patch') ownPatch = true;
    ts.forEachChild(n, scan);
  };
  scan(sf);
  const patchName = ownPatch ? 'patchSink' : 'patch';
  let importsSinks = false;
  const visit = (n: ts.Node): void => {
    if (ts.isImportDeclaration(n) && n.importClause?.namedBindings && ts.isNamedImports(n.importClause.namedBindings)) {
      const els = n.importClause.namedBindings.elements;
      const names = els.map((e) => e.name.text);
      if (names.includes('applyStatus') || names.includes('patchStatus')) {
        importsSinks = true;
        const out: string[] = [];
        for (const e of els) {
          const own = e.propertyName?.text ?? e.name.text;
          if (own === 'applyStatus') { if (!names.includes('apply')) out.push('apply'); continue; }
          if (own === 'patchStatus') { if (!names.includes('patch')) out.push(ownPatch ? 'patch as patchSink' : 'patch'); continue; }
          out.push(e.getText(sf));
        }
        const nb = n.importClause.namedBindings;
        edits.push({ start: nb.getStart(sf), end: nb.getEnd(), text: `{ ${[...new Set(out)].join(', ')} }` });
      }
      return;
    }
    if (ts.isCallExpression(n) && ts.isIdentifier(n.expression) && (n.expression.text === 'applyStatus' || n.expression.text === 'patchStatus')) {
      const isApply = n.expression.text === 'applyStatus';
      const arg = n.arguments[1];
      edits.push({ start: n.expression.getStart(sf), end: n.expression.getEnd(), text: isApply ? 'apply' : patchName });
      if (arg === undefined) { console.error(`${file}:${sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1}: no write argument: hand edit`); return; }
      if (!ts.isObjectLiteralExpression(arg)) {
        const inner = arg.getText(sf);
        edits.push({ start: arg.getStart(sf), end: arg.getEnd(), text: isApply ? `{ ...${inner}, subresource: 'status' }` : `{ ...${inner}, subresource: 'status' as const, patch: { status: ${inner}.status } }` });
        if (!isApply) console.error(`${file}:${sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1}: patchStatus with a non-literal write: check the result`);
        return;
      }
      const props = arg.properties;
      if (isApply) {
        const last = props[props.length - 1];
        const at = last ? last.getEnd() : arg.getStart(sf) + 1;
        edits.push({ start: at, end: at, text: `${last ? ',' : ''} subresource: 'status'` });
      } else {
        const status = props.find((p) => (ts.isPropertyAssignment(p) || ts.isShorthandPropertyAssignment(p)) && p.name.getText(sf) === 'status');
        if (status === undefined) { console.error(`${file}:${sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1}: patchStatus without a status property: hand edit`); return; }
        const value = ts.isPropertyAssignment(status) ? status.initializer.getText(sf) : 'status';
        edits.push({ start: status.getStart(sf), end: status.getEnd(), text: `subresource: 'status', patch: { status: ${value} }` });
      }
      // keep visiting the arguments (nested calls)
    }
    if (ts.isIdentifier(n) && (n.text === 'applyStatusEach' || n.text === 'patchStatusEach')) {
      console.error(`${file}:${sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1}: ${n.text}: hand edit (map each write to subresource 'status', then applyEach/patchEach)`);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  if (edits.length === 0) continue;
  if (!importsSinks) console.error(`${file}: calls rewritten but no import of applyStatus/patchStatus found: check the imports`);
  let out = text;
  for (const e of edits.sort((a, b) => b.start - a.start)) out = out.slice(0, e.start) + e.text + out.slice(e.end);
  writeFileSync(file, out);
  changed++;
  console.log(`${file}: ${edits.length} edits`);
}
console.log(`files changed: ${changed}`);
