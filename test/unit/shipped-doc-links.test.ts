// Every relative link in the markdown the package ships resolves inside the package: a reader of
// node_modules/rxfleet/ (or of the package page) can follow it. The file set is npm's own answer
// (`npm pack --dry-run --json`), so the `files` allow-list, its negations and npm's always-included
// files all count. Anchors into markdown must name a heading of the target (GitHub's slugs).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');

/** The paths `npm pack` would put in the tarball (POSIX, relative to the package root). */
function packedFiles(): ReadonlySet<string> {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 });
  const [pack] = JSON.parse(out) as { files: { path: string }[] }[];
  if (pack === undefined) throw new Error('npm pack --dry-run --json printed no package');
  return new Set(pack.files.map((f) => f.path));
}

/** Markdown without fenced code blocks and inline code spans (links there are not links). */
function prose(text: string): string {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/(`+)[^`\n]+?\1/g, '');
}

/** Link targets: inline `[text](target "title")`, images, and reference definitions `[id]: target`. */
function linkTargets(text: string): string[] {
  const body = prose(text);
  const inline = [...body.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1] ?? '');
  const defined = [...body.matchAll(/^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/gm)].map((m) => m[1] ?? '');
  return [...inline, ...defined];
}

/** GitHub's anchors for the headings of a markdown text (github-slugger: duplicates get -1, -2...). */
function headingSlugs(text: string): ReadonlySet<string> {
  const seen = new Map<string, number>();
  const slugs = new Set<string>();
  for (const m of text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const title = (m[1] ?? '').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    const base = title.toLowerCase().replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '').replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    slugs.add(n === 0 ? base : `${base}-${n}`);
  }
  return slugs;
}

/** Why `target`, linked from the packed file `from`, does not resolve inside the package; undefined when it does. */
function brokenLink(from: string, target: string, packed: ReadonlySet<string>, read: (path: string) => string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined; // https:, mailto:...: outside the package by intent
  const hash = target.indexOf('#');
  const pathPart = decodeURI(hash < 0 ? target : target.slice(0, hash));
  const anchor = hash < 0 ? undefined : target.slice(hash + 1);
  const resolved = pathPart === '' ? from : posix.normalize(posix.join(posix.dirname(from), pathPart)).replace(/\/$/, '');
  if (resolved.startsWith('../') || posix.isAbsolute(resolved)) return `${resolved} is outside the package`;
  // A template's links are read in the project it scaffolds, where `x.tmpl` is written as `x`.
  const file = [resolved, `${resolved}.tmpl`].find((p) => packed.has(p));
  const isDir = [...packed].some((p) => p.startsWith(`${resolved}/`));
  if (file === undefined && !isDir) return `${resolved} is not in the package`;
  if (anchor === undefined || anchor === '' || file === undefined || !/\.md(\.tmpl)?$/.test(file)) return undefined;
  return headingSlugs(read(file)).has(anchor) ? undefined : `${file} has no heading #${anchor}`;
}

describe('the markdown the package ships', () => {
  const packed = packedFiles();
  const read = (p: string): string => readFileSync(join(root, p), 'utf8');
  const docs = [...packed].filter((p) => /\.md(\.tmpl)?$/.test(p)).sort();

  it('includes the README, the changelog, the docs and the examples\' READMEs', () => {
    expect(docs).toEqual(expect.arrayContaining(['README.md', 'CHANGELOG.md', 'docs/guide.md', 'docs/deploy.md', 'examples/crd-types/README.md']));
  });

  it('links only to files and headings inside the package', () => {
    const broken = docs.flatMap((doc) =>
      linkTargets(read(doc)).flatMap((target) => {
        const why = brokenLink(doc, target, packed, read);
        return why === undefined ? [] : [`${doc}: (${target}): ${why}`];
      }),
    );
    expect(broken).toEqual([]);
  });
});

describe('the link reader', () => {
  it('finds inline, image and reference links, but not those in code', () => {
    const text = ['See [a](docs/a.md#x) and ![b](b.png "B").', '`[c](c.md)`', '```md', '[d](d.md)', '```', '[e]: e.md', '[f]: https://example.com/f'].join('\n');
    expect(linkTargets(text)).toEqual(['docs/a.md#x', 'b.png', 'e.md', 'https://example.com/f']);
  });

  it('makes GitHub\'s heading anchors', () => {
    const text = ['# Guide: writing a `fleet` controller', '## Running several replicas', '## Running several replicas', '```sh', '# not a heading', '```'].join('\n');
    expect([...headingSlugs(text)]).toEqual(['guide-writing-a-fleet-controller', 'running-several-replicas', 'running-several-replicas-1']);
  });

  it('says why a link does not resolve', () => {
    const packed = new Set(['README.md', 'docs/guide.md', 'examples/ha/main.ts', 'templates/init/README.md.tmpl', 'templates/init/package.json.tmpl']);
    const read = (p: string): string => (p === 'docs/guide.md' ? '# Guide\n## Testing\n' : '');
    expect(brokenLink('README.md', 'bench/README.md', packed, read)).toBe('bench/README.md is not in the package');
    expect(brokenLink('docs/guide.md', '../../x.md', packed, read)).toBe('../x.md is outside the package');
    expect(brokenLink('README.md', 'docs/guide.md#deploying', packed, read)).toBe('docs/guide.md has no heading #deploying');
    expect(brokenLink('README.md', 'docs/guide.md#testing', packed, read)).toBeUndefined();
    expect(brokenLink('docs/guide.md', '#guide', packed, read)).toBeUndefined();
    expect(brokenLink('docs/guide.md', '../examples/ha', packed, read)).toBeUndefined();
    expect(brokenLink('templates/init/README.md.tmpl', 'package.json', packed, read)).toBeUndefined();
    expect(brokenLink('README.md', 'https://github.com/rxfleet/rxfleet/blob/main/bench/README.md', packed, read)).toBeUndefined();
  });
});
