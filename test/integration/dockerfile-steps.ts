// Runs a Dockerfile's steps without Docker, for a test on a machine that has none: a small
// interpreter of the instructions the scaffold's Dockerfile uses (FROM … [AS name], WORKDIR, COPY
// [--from=stage], RUN, ENV, USER, EXPOSE, ENTRYPOINT, CMD; any other instruction is an error, so a
// Dockerfile that grows one fails the test instead of being half-run). Each stage's filesystem is a
// folder: its WORKDIR is that folder, `COPY <src> <dest>` copies from the build context (`.` or
// top-level names with `*`, honouring the .dockerignore's plain names and `*.ext` patterns; a missing
// name without `*` is an error, as in Docker) or from an earlier stage's folder, and `RUN`
// runs the command with `sh -c` in it, on this machine's Node and npm, not the base image's, with an
// `ENV` path under the WORKDIR pointing into that folder.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';

/** One instruction: its keyword and the rest of its line (continuations joined). */
interface Instruction {
  readonly op: string;
  readonly args: string;
}

/** What the last stage of a run leaves: its folder, environment, user and command line. */
export interface ImageResult {
  /** The folder standing for the image's WORKDIR. */
  readonly root: string;
  /** `ENV` of the last stage. */
  readonly env: Readonly<Record<string, string>>;
  /** `USER` of the last stage, if any. */
  readonly user?: string;
  /** `ENTRYPOINT` then `CMD` (exec form). */
  readonly command: readonly string[];
}

/** The instructions of a Dockerfile, comments and blank lines dropped, `\` continuations joined. */
export function instructions(text: string): Instruction[] {
  const lines = text.replace(/\\\r?\n/g, ' ').split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#'));
  return lines.map((l) => {
    const [op = '', ...rest] = l.split(/\s+/);
    return { op: op.toUpperCase(), args: rest.join(' ') };
  });
}

/** The .dockerignore's entries as tests on a top-level name (plain names and `*.ext` only). */
function ignored(context: string): (name: string) => boolean {
  const file = join(context, '.dockerignore');
  const entries = existsSync(file) ? readFileSync(file, 'utf8').split('\n').map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#')) : [];
  for (const e of entries) {
    if (e.includes('/') || e.startsWith('!') || (e.includes('*') && !/^\*\.[\w.]+$/.test(e))) throw new Error(`.dockerignore entry ${e}: this runner knows plain names and *.ext only`);
  }
  return (name) => entries.some((e) => (e.startsWith('*.') ? name.endsWith(e.slice(1)) : name === e));
}

interface Stage {
  readonly name?: string;
  readonly root: string;
  workdir: string;
  env: Record<string, string>;
  user?: string;
  entrypoint: string[];
  cmd: string[];
}

/**
 * The stage's `ENV` as its `RUN` commands see it here: a value that is a path under the WORKDIR
 * (`/app/.cache`) points into the stage's folder, as a COPY destination does, so that a command
 * writing there writes into the image, not into this machine's `/app`.
 */
function inStage(stage: Stage): Record<string, string> {
  const under = (v: string): boolean => stage.workdir !== '/' && (v === stage.workdir || v.startsWith(`${stage.workdir}/`));
  return Object.fromEntries(Object.entries(stage.env).map(([k, v]) => [k, under(v) ? join(stage.root, posix.relative(stage.workdir, v)) : v]));
}

/** `dest` of a COPY inside a stage's folder: relative to its WORKDIR, or absolute under it. */
function inside(stage: Stage, path: string): string {
  const abs = posix.resolve(stage.workdir, path);
  if (abs !== stage.workdir && !abs.startsWith(`${stage.workdir}/`)) throw new Error(`${path} is outside WORKDIR ${stage.workdir}: this runner maps only the WORKDIR`);
  return join(stage.root, posix.relative(stage.workdir, abs));
}

function copy(stage: Stage, args: string, context: string, stages: readonly Stage[]): void {
  const from = /^--from=(\S+)\s+/.exec(args);
  const [dest, ...sources] = (from === null ? args : args.slice(from[0].length)).split(/\s+/).reverse();
  if (dest === undefined || sources.length === 0) throw new Error(`COPY ${args}: expected sources and a destination`);
  const target = inside(stage, dest);
  const intoFolder = dest.endsWith('/') || dest === '.';
  mkdirSync(intoFolder ? target : dirname(target), { recursive: true });
  for (const src of sources.reverse()) {
    if (from !== null) {
      const source = stages.find((s) => s.name === from[1]);
      if (source === undefined) throw new Error(`COPY --from=${from[1]}: no such stage`);
      const path = inside(source, src);
      cpSync(path, intoFolder ? join(target, posix.basename(src)) : target, { recursive: true, verbatimSymlinks: true });
    } else if (src === '.') {
      const skip = ignored(context);
      for (const name of readdirSync(context)) if (!skip(name)) cpSync(join(context, name), join(target, name), { recursive: true, verbatimSymlinks: true });
    } else {
      // Top-level names of the context, `*` matching any run of characters (`package-lock.json*`).
      if (src.includes('/')) throw new Error(`COPY ${src}: this runner copies top-level names of the context only`);
      if (!intoFolder) {
        if (sources.length !== 1 || src.includes('*')) throw new Error(`COPY ${args}: several sources need a folder (ending in /) as destination`);
        if (!existsSync(join(context, src))) throw new Error(`COPY ${src}: not in the build context`);
        cpSync(join(context, src), target, { recursive: true, verbatimSymlinks: true });
        continue;
      }
      const pattern = new RegExp(`^${src.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`);
      const names = readdirSync(context).filter((n) => pattern.test(n) && !ignored(context)(n));
      if (names.length === 0 && !src.includes('*')) throw new Error(`COPY ${src}: not in the build context`);
      for (const name of names) cpSync(join(context, name), join(target, name), { recursive: true, verbatimSymlinks: true });
    }
  }
}

function execForm(args: string): string[] {
  const parsed = JSON.parse(args) as unknown;
  if (!Array.isArray(parsed) || !parsed.every((a) => typeof a === 'string')) throw new Error(`${args}: expected the exec form, a JSON array of strings`);
  return parsed;
}

/**
 * Runs every stage of `dockerfile` on `context`, each stage in a new folder under `work`. `RUN`
 * commands get `env` plus the stage's `ENV`; a failing one throws with its output's tail.
 *
 * @example
 * ```ts
 * const image = buildImage(join(clone, 'Dockerfile'), clone, join(work, 'image'), process.env);
 * spawnSync(process.execPath, image.command.slice(1), { cwd: image.root });
 * ```
 */
export function buildImage(dockerfile: string, context: string, work: string, env: NodeJS.ProcessEnv): ImageResult {
  const stages: Stage[] = [];
  for (const { op, args } of instructions(readFileSync(dockerfile, 'utf8'))) {
    const stage = stages.at(-1);
    if (op === 'FROM') {
      const name = /\s+AS\s+(\S+)$/i.exec(args)?.[1];
      const root = join(work, `stage-${stages.length}`);
      mkdirSync(root, { recursive: true });
      stages.push({ ...(name === undefined ? {} : { name }), root, workdir: '/', env: {}, entrypoint: [], cmd: [] });
      continue;
    }
    if (stage === undefined) throw new Error(`${op} before FROM`);
    if (op === 'WORKDIR') {
      if (readdirSync(stage.root).length > 0) throw new Error(`WORKDIR ${args} after files were copied: this runner maps one WORKDIR per stage`);
      stage.workdir = posix.resolve(stage.workdir, args);
    } else if (op === 'COPY') copy(stage, args, context, stages);
    else if (op === 'RUN') {
      const res = spawnSync('sh', ['-c', args], { cwd: stage.root, env: { ...env, ...inStage(stage) }, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: 600_000 });
      if (res.status !== 0) throw new Error(`RUN ${args} failed (exit ${res.status} ${res.signal ?? ''}):\n${`${res.stdout}\n${res.stderr}`.slice(-4000)}`);
    } else if (op === 'ENV') {
      const m = /^(\w+)=(.*)$/.exec(args);
      if (m?.[1] === undefined) throw new Error(`ENV ${args}: expected NAME=value`);
      stage.env[m[1]] = m[2] ?? '';
    } else if (op === 'USER') stage.user = args;
    else if (op === 'ENTRYPOINT') stage.entrypoint = execForm(args);
    else if (op === 'CMD') stage.cmd = execForm(args);
    else if (op !== 'EXPOSE') throw new Error(`${op} ${args}: an instruction this runner does not know`);
  }
  const last = stages.at(-1);
  if (last === undefined) throw new Error(`${dockerfile}: no FROM`);
  return { root: last.root, env: last.env, ...(last.user === undefined ? {} : { user: last.user }), command: [...last.entrypoint, ...last.cmd] };
}
