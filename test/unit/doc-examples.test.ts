// Doc-comment examples are code: every ```ts block in an @example of src/ (and of the workspace
// packages' sources, packages/*/src) is type-checked against the packages, as a snippet in an async
// function with every export of their entry points (and of rxjs) in scope. Free names a snippet assumes (`client`, `east`, `fleet`...) are tolerated;
// anything else the compiler says is a failure, anywhere in src/. rxfleet/resources is left out of
// scope: its descriptors (`events`, `jobs`, `roles`) would shadow the free names snippets use.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const src = join(root, 'src');
const cliSrc = join(root, 'packages', 'cli', 'src');
const virtualDir = join(root, '.doc-examples');

interface Example {
  readonly file: string;
  readonly line: number;
  readonly code: string;
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = join(dir, d.name);
    if (d.isDirectory()) return sources(p);
    return d.name.endsWith('.ts') && !d.name.endsWith('.d.ts') ? [p] : [];
  });
}

/** Every fenced ts block inside a doc comment's @example. */
function examplesOf(file: string): Example[] {
  const text = readFileSync(file, 'utf8');
  const out: Example[] = [];
  for (const m of text.matchAll(/\/\*\*[\s\S]*?\*\//g)) {
    const comment = m[0];
    const at = comment.indexOf('@example');
    if (at < 0) continue;
    const body = comment.slice(at).split('\n').map((l) => l.replace(/^\s*\* ?/, ''));
    let block: string[] | undefined;
    let start = 0;
    body.forEach((l, i) => {
      if (block === undefined && /^```(ts|typescript)\s*$/.test(l.trim())) {
        block = [];
        start = i;
      } else if (block !== undefined && l.trim() === '```') {
        const line = text.slice(0, m.index + at).split('\n').length + start;
        out.push({ file, line, code: block.join('\n') });
        block = undefined;
      } else block?.push(l);
    });
  }
  return out;
}

/** Entry points whose exports are in scope; the first to export a name wins. */
function entryPoints(): string[] {
  const providers = readdirSync(join(src, 'providers'), { withFileTypes: true })
    .filter((d) => d.isDirectory() && d.name !== 'internal')
    .map((d) => join(src, 'providers', d.name, 'index.ts'));
  return [join(src, 'index.ts'), ...['streams', 'client', 'runtime', 'fp', 'operators', 'sinks', 'testing', 'envtest', 'sync', 'cli'].map((e) => join(src, e, 'index.ts')), ...providers, join(cliSrc, 'codegen', 'index.ts')];
}

function compilerOptions(): ts.CompilerOptions {
  const cfg = ts.readConfigFile(join(root, 'tsconfig.json'), (p) => ts.sys.readFile(p));
  const parsed = ts.parseJsonConfigFileContent(cfg.config, ts.sys, root);
  return { ...parsed.options, noEmit: true, noUnusedLocals: false, noUnusedParameters: false, noImplicitReturns: false };
}

// Free names the snippets assume, and their follow-ups: tolerated.
const tolerated = new Set([2304, 2552, 2582, 2593, 18004]);

function check(examples: readonly Example[]): { example: Example; errors: string[] }[] {
  const options = compilerOptions();
  const host = ts.createCompilerHost(options);
  const probe = ts.createProgram(entryPoints(), options, host);
  const checker = probe.getTypeChecker();
  const seen = new Set<string>();
  const valueImports: string[] = [];
  const typeImports: string[] = [];
  const spec = (file: string) => `../${relative(root, file).replace(/\.ts$/, '.js').split('\\').join('/')}`;
  const scopeFrom = (from: string, symbols: readonly ts.Symbol[]) => {
    const values: string[] = [];
    const types: string[] = [];
    for (const s of symbols) {
      const name = s.getName();
      if (seen.has(name) || name === 'default') continue;
      seen.add(name);
      const target = s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s;
      (target.flags & ts.SymbolFlags.Value ? values : types).push(name);
    }
    if (values.length > 0) valueImports.push(`import { ${values.join(', ')} } from '${from}';`);
    if (types.length > 0) typeImports.push(`import type { ${types.join(', ')} } from '${from}';`);
  };
  for (const entry of entryPoints()) {
    const sf = probe.getSourceFile(entry);
    const mod = sf === undefined ? undefined : checker.getSymbolAtLocation(sf);
    if (mod !== undefined) scopeFrom(spec(entry), checker.getExportsOfModule(mod));
  }
  const preamble = [...valueImports, ...typeImports, "import * as rx from 'rxjs';", "import { pino } from 'pino';"].join('\n');
  const files = new Map<string, string>();
  examples.forEach((ex, i) => {
    const lines = ex.code.split('\n');
    // The package's own imports are already in scope; other imports (rxjs, node:) stay, at top level.
    const imports = lines.filter((l) => /^\s*import\s/.test(l) && !/from '(rxfleet|@rxfleet\/|\.\.?\/)/.test(l) && !l.includes("from 'rxjs'"));
    const body = lines.filter((l) => !/^\s*import\s/.test(l));
    const rxUsed = [...new Set(body.join('\n').match(/\b(of|from|map|filter|defer|merge|concat|firstValueFrom|lastValueFrom|mergeMap|concatMap|switchMap|tap|toArray|take|takeUntil|timer|NEVER|EMPTY|Subject|BehaviorSubject|asyncScheduler|Observable|interval|share|scan|catchError|identity)\b/g) ?? [])].filter((n) => !seen.has(n));
    const rxValues = rxUsed.filter((n) => n !== 'Observable');
    const rxLine = `${rxValues.length === 0 ? '' : `const { ${rxValues.join(', ')} } = rx;`}${rxUsed.includes('Observable') ? ' type Observable<T> = rx.Observable<T>;' : ''}`;
    const code = `${preamble}\n${imports.join('\n')}\nexport {};\n${rxLine}\nasync function __example(): Promise<void> {\n${body.join('\n')}\n}\nvoid __example;\n`;
    files.set(join(virtualDir, `ex${i}.ts`), code);
  });
  const vhost: ts.CompilerHost = {
    ...host,
    fileExists: (f) => files.has(f) || host.fileExists(f),
    readFile: (f) => files.get(f) ?? host.readFile(f),
    getSourceFile: (f, lang, onError, create) => {
      const text = files.get(f);
      return text === undefined ? host.getSourceFile(f, lang, onError, create) : ts.createSourceFile(f, text, lang, true);
    },
  };
  const program = ts.createProgram([...files.keys()], options, vhost, probe);
  return examples.map((example, i) => {
    const sf = program.getSourceFile(join(virtualDir, `ex${i}.ts`));
    const diags = sf === undefined ? [] : [...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf)];
    const errors = diags.filter((d) => !tolerated.has(d.code)).map((d) => `TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
    return { example, errors };
  });
}

describe('doc-comment examples', () => {
  it('type-check against the package, every one of them', { timeout: 120_000 }, () => {
    const packageSources = readdirSync(join(root, 'packages')).map((p) => join(root, 'packages', p, 'src')).filter((d) => existsSync(d));
    const examples = [src, ...packageSources].flatMap(sources).flatMap(examplesOf);
    const results = check(examples);
    const failing = results.filter((r) => r.errors.length > 0);
    const byFile = new Map<string, number>();
    for (const f of failing) byFile.set(relative(root, f.example.file), (byFile.get(relative(root, f.example.file)) ?? 0) + 1);
    console.log(
      `doc examples: ${examples.length} found, ${examples.length - failing.length} pass, ${failing.length} fail` +
        (byFile.size === 0 ? '' : `\n  failing by file:\n${[...byFile].map(([f, n]) => `    ${f}: ${n}`).join('\n')}`),
    );
    if (process.env.DOC_EXAMPLES_VERBOSE === '1') {
      for (const f of failing) console.log(`${relative(root, f.example.file)}:${f.example.line}\n  ${f.errors.join('\n  ')}`);
    }
    expect(failing.map((f) => `${relative(root, f.example.file)}:${f.example.line}: ${f.errors.join('; ')}`)).toEqual([]);
    expect(examples.length).toBeGreaterThan(100);
  });
});
