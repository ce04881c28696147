// What `rxfleet get <resource>` names, resolved as kubectl resolves it: against what the cluster's
// discovery serves (`servedResources` of rxfleet/client), by plural, singular, short name or kind, optionally with its
// group (`backups.ops.example.com`) or version and group (`backups.v1.ops.example.com`); or exactly,
// as `group/version/plural`. An unknown name gets the nearest served names as a hint.
import type { Either, ResourceDescriptor } from 'rxfleet';
import { ConfigError, resource } from 'rxfleet';
import { E } from 'rxfleet/fp';
import { nearest } from './did-you-mean.js';
import type { ServedResource, ServedResources } from 'rxfleet/client';

/**
 * A resource name as given, checked for form: `group/version/plural` (a `path`), or a name
 * kubectl takes (`deployments`, `deploy`, `Deployment`, `deployments.apps`, `deployments.v1.apps`).
 *
 * @example
 * ```ts
 * const n: ResourceName = { type: 'name', text: 'backups.ops.example.com' };
 * ```
 */
export type ResourceName = { readonly type: 'path'; readonly group: string; readonly version: string; readonly plural: string } | { readonly type: 'name'; readonly text: string };

/**
 * Checks the form of a resource name, before any cluster is asked.
 *
 * @example
 * ```ts
 * parseResourceName('apps/v1/deployments'); // { type: 'path', group: 'apps', version: 'v1', plural: 'deployments' }
 * parseResourceName('v1/pods'); // { type: 'path', group: '', version: 'v1', plural: 'pods' }
 * parseResourceName('Backups.ops.example.com'); // { type: 'name', text: 'backups.ops.example.com' }
 * ```
 * @param text - the name given.
 * @returns the parsed name.
 * @throws ConfigError when it is empty or has a slash but is not `group/version/plural`.
 */
export function parseResourceName(text: string): ResourceName {
  const bad = new ConfigError(
    `resource ${JSON.stringify(text)}: expected a name kubectl takes (deployments, deploy, deployments.apps, deployments.v1.apps) or group/version/plural (apps/v1/deployments, v1/pods)`,
  );
  if (!text.includes('/')) {
    if (text.trim() === '' || /\s/.test(text)) throw bad;
    return { type: 'name', text: text.toLowerCase() };
  }
  const slash = text.split('/');
  if (!(slash.length === 3 || (slash.length === 2 && slash[0] === 'v1'))) throw bad;
  const [group = '', version = '', plural = ''] = slash.length === 3 ? slash : ['', ...slash];
  if (version === '' || plural === '' || plural !== plural.toLowerCase()) throw bad;
  return { type: 'path', group, version, plural };
}

/** How the name is shown to a person: `configmaps`, `backups.ops.example.com`. */
function shown(r: ServedResource): string {
  return r.group === '' ? r.plural : `${r.plural}.${r.group}`;
}

/** The names a resource answers to, without group: plural, singular, short names, kind, best first. */
function namesOf(r: ServedResource): readonly (readonly string[])[] {
  return [[r.plural], r.singular === '' ? [] : [r.singular], r.shortNames, [r.kind.toLowerCase()]];
}

// kubectl's reading of `a.b.c`: resource a of version b in group c, or resource a of group b.c.
function readings(text: string): { readonly name: string; readonly version?: string; readonly group?: string }[] {
  const [name = '', version = '', ...group] = text.split('.');
  const rest = [version, ...group].join('.');
  return [...(group.length > 0 ? [{ name, version, group: group.join('.') }] : []), ...(rest === '' ? [] : [{ name, group: rest }]), { name: text }];
}

function find(name: ResourceName, served: readonly ServedResource[]): ServedResource | undefined {
  if (name.type === 'path') return served.find((r) => r.group === name.group && r.version === name.version && r.plural === name.plural);
  for (const reading of readings(name.text)) {
    const inGroup = served.filter((r) => (reading.group === undefined || r.group === reading.group) && (reading.version === undefined || r.version === reading.version));
    // A plural beats a singular, a singular a short name, a short name a kind; then discovery's order.
    for (let level = 0; level < 4; level++) {
      const hit = inGroup.find((r) => namesOf(r)[level]?.includes(reading.name) === true);
      if (hit !== undefined) return hit;
    }
  }
  return undefined;
}

/** The served names nearest to the one given, in the form it was given (with a group or not). */
function hints(name: ResourceName, served: readonly ServedResource[]): readonly string[] {
  const text = name.type === 'path' ? `${name.plural}.${name.version}.${name.group}` : name.text;
  const forms = new Map<string, string>();
  for (const r of served) {
    const bare = namesOf(r).flat();
    const qualified = bare.flatMap((n) => [`${n}.${r.group}`, `${n}.${r.version}.${r.group}`]);
    for (const form of text.includes('.') ? qualified : bare) if (!forms.has(form)) forms.set(form, shown(r));
  }
  return [...new Set(nearest(text, [...forms.keys()], 10).map((f) => forms.get(f) ?? f))].slice(0, 3);
}

function didYouMean(names: readonly string[]): string {
  const quoted = names.map((n) => JSON.stringify(n));
  const last = quoted.pop();
  return quoted.length === 0 ? `did you mean ${last ?? ''}?` : `did you mean ${quoted.join(', ')} or ${last ?? ''}?`;
}

/**
 * Resolves a name against what one cluster serves: the first match in discovery's order (core
 * first, each group's preferred version first), a plural before a singular, a short name or a
 * kind. Unknown: why, with the nearest served names (edit distance) and the group versions whose
 * discovery failed.
 *
 * @example
 * ```ts
 * const served = await servedResources(client, { timeoutMs: 30_000 });
 * if (E.isRight(served)) resolveServed(parseResourceName('deploy'), served.right); // Right(apps/v1 deployments)
 * ```
 * @param name - the parsed name.
 * @param served - the cluster's discovery.
 * @returns the descriptor, or the reason (without the cluster's name).
 */
export function resolveServed(name: ResourceName, served: ServedResources): Either<string, ResourceDescriptor> {
  const hit = find(name, served.resources);
  if (hit !== undefined) return E.right(resource({ group: hit.group, version: hit.version, plural: hit.plural, kind: hit.kind, namespaced: hit.namespaced }));
  const given = name.type === 'path' ? `${name.group}/${name.version}/${name.plural}` : name.text;
  const near = hints(name, served.resources);
  const hint = near.length > 0 ? `; ${didYouMean(near)}` : ' (kubectl api-resources lists what it serves)';
  const failed = served.failed.length === 0 ? '' : `. Discovery failed for ${served.failed.join('; ')}`;
  return E.left(`the server has no resource ${JSON.stringify(given)}${hint}${failed}`);
}
