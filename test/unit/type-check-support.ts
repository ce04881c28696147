// Type-checks TypeScript text that is not on disk (generated code, doc snippets) against the
// project's tsconfig, as if each text were a file at the given path under the repository.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * The compiler's errors for each virtual file (path relative to the repository → text), as
 * `path:line: TSxxxx message` strings; empty when everything type-checks.
 */
export function typeErrors(files: Readonly<Record<string, string>>): string[] {
  const cfg = ts.readConfigFile(join(repoRoot, 'tsconfig.json'), (p) => ts.sys.readFile(p));
  const options = { ...ts.parseJsonConfigFileContent(cfg.config, ts.sys, repoRoot).options, noEmit: true, noUnusedLocals: false };
  const virtual = new Map(Object.entries(files).map(([p, text]) => [join(repoRoot, p), text]));
  const host = ts.createCompilerHost(options);
  const vhost: ts.CompilerHost = {
    ...host,
    fileExists: (f) => virtual.has(f) || host.fileExists(f),
    // Module resolution looks into a directory only when it exists: virtual files make theirs.
    directoryExists: (d) => [...virtual.keys()].some((f) => f.startsWith(`${d}/`)) || (host.directoryExists?.(d) ?? true),
    readFile: (f) => virtual.get(f) ?? host.readFile(f),
    getSourceFile: (f, lang, onError, create) => {
      const text = virtual.get(f);
      return text === undefined ? host.getSourceFile(f, lang, onError, create) : ts.createSourceFile(f, text, lang, true);
    },
  };
  const program = ts.createProgram([...virtual.keys()], options, vhost);
  return [...virtual.keys()].flatMap((f) => {
    const sf = program.getSourceFile(f);
    if (sf === undefined) return [`${f}: not compiled`];
    return [...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf)].map((d) => {
      const line = d.start === undefined ? 0 : sf.getLineAndCharacterOfPosition(d.start).line + 1;
      return `${f.slice(repoRoot.length + 1)}:${line}: TS${d.code} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
    });
  });
}
