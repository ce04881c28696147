// The `installations` list of the config, checked: each installation's fields at load (config.ts),
// and, at preflight, that no two installations can give two consumer objects one service-side place
// (the same logical cluster, `root` first of all, exists in every kcp; only the namespace prefix
// tells their copies apart).
import type { Json, Problems } from './config-check.js';
import { describe, list, mapping, text } from './config-check.js';
import type { KcpInstallation } from './installations.js';
import { defaultInstallation } from './installations.js';
import { dnsLabelProblem, dnsSubdomainProblem } from './naming.js';
import { defaultNamespaceTemplate } from './naming.js';
import type { PublishedResource } from './types.js';

const prefixProblem = (s: string): string | undefined => (s === '' || /^[a-z0-9][-a-z0-9]{0,61}$/.test(s) ? (s === '' ? 'must not be empty (only the default installation has none)' : undefined) : 'must be lowercase letters, digits and "-", starting with a letter or digit, at most 62 characters');

/**
 * Checks the config's `installations` list into `p`: each entry's fields, names unique and not
 * `default` (the `--kcp-kubeconfig` installation's), prefixes unique.
 *
 * @example
 * ```ts
 * checkInstallations({ installations: [{ name: 'eu', kubeconfig: 'eu.kubeconfig', namespacePrefix: 'eu-' }] }, problems);
 * ```
 * @param m - the config mapping.
 * @param p - where problems go.
 */
export function checkInstallations(m: Json, p: Problems): void {
  const names = new Map<string, string>();
  list(m, 'installations', '', p, 'must not be empty; leave it out to serve the default installation only')?.forEach((v, i) => {
    const where = `installations[${i}]`;
    const e = mapping(v, where, ['name', 'kubeconfig', 'apiExport', 'namespacePrefix'], p);
    if (e === undefined) return;
    const name = text(e, 'name', where, p, (s) => (s === defaultInstallation ? `is the default installation's name (the --kcp-kubeconfig one); choose another` : dnsLabelProblem(s)), true);
    const first = name === undefined ? undefined : names.get(name);
    if (name !== undefined && first !== undefined) p.add(`${where}.name`, `"${name}" is already the name of ${first}`);
    if (name !== undefined && first === undefined) names.set(name, where);
    if (e.kubeconfig !== undefined && (typeof e.kubeconfig !== 'string' || e.kubeconfig === '')) p.add(`${where}.kubeconfig`, `expected a kubeconfig path, got ${describe(e.kubeconfig)}`);
    else if (e.kubeconfig === undefined) p.add(`${where}.kubeconfig`, "required: its provider workspace's kubeconfig (relative to the config file)");
    text(e, 'apiExport', where, p, dnsSubdomainProblem);
    text(e, 'namespacePrefix', where, p, prefixProblem, true);
  });
}

// The literal text a namespace template's output starts with, and whether it is nothing else.
function lead(template: string): { readonly text: string; readonly constant: boolean } {
  const i = template.indexOf('{{');
  return i < 0 ? { text: template.trim(), constant: true } : { text: template.slice(0, i).trimStart(), constant: false };
}

interface Side {
  readonly name: string;
  readonly prefix: string;
}

/**
 * Each pair of installations (the default one, with no prefix, included) whose naming could give a
 * consumer object of one and a consumer object of the other the same service-side place, naming
 * both installations and the published resource. Every installation has a workspace `root`, and a
 * logical cluster name can be any DNS label, so a template's output is only told apart by the
 * text it starts with: two prefixes differ safely when, followed by that text, neither starts the
 * other (a constant namespace: when they differ). A resource without a service-side namespace has
 * nothing to put a prefix on, and is refused with more than one installation.
 *
 * @example
 * ```ts
 * installationCollisions([{ name: 'eu', kubeconfig: 'eu.kubeconfig', namespacePrefix: 'eu-' }], [{ where: 'published[0] "databases"', entry: published, namespaced: true }]);
 * // ['published[0] "databases": installations "default" and "eu" can give two objects one service-side place: ...']
 * ```
 * @param installations - the config's installations (besides the default one).
 * @param published - the published resources, each with where to name it and whether its service side is namespaced.
 * @returns the problems.
 */
export function installationCollisions(installations: readonly KcpInstallation[] | undefined, published: readonly { readonly where: string; readonly entry: PublishedResource; readonly namespaced: boolean }[]): string[] {
  if (installations === undefined || installations.length === 0) return [];
  const sides: Side[] = [{ name: defaultInstallation, prefix: '' }, ...installations.map((i) => ({ name: i.name, prefix: i.namespacePrefix }))];
  const out: string[] = [];
  for (const { where, entry, namespaced } of published) {
    if (!namespaced) {
      out.push(`${where}: is cluster-scoped on the service cluster, so its copies have no namespace to prefix: installations ${sides.map((s) => `"${s.name}"`).join(', ')} could give two objects one name; serve it from one installation`);
      continue;
    }
    const template = entry.naming?.namespace ?? defaultNamespaceTemplate;
    const { text, constant } = lead(template);
    for (let a = 0; a < sides.length; a++) {
      for (let b = a + 1; b < sides.length; b++) {
        const [x, y] = [sides[a], sides[b]] as [Side, Side];
        const [s, t] = [x.prefix + text, y.prefix + text];
        const clash = constant ? s === t : s.startsWith(t) || t.startsWith(s);
        if (!clash) continue;
        out.push(
          `${where}: installations "${x.name}" (namespace prefix "${x.prefix}") and "${y.name}" (namespace prefix "${y.prefix}") can give two objects one service-side place: ` +
            `the namespace template ${JSON.stringify(template)} ${constant ? 'is the same text for both' : `may render, after "${s.length <= t.length ? x.prefix : y.prefix}", what the other's prefix adds`} (a workspace "root" is in every kcp); ` +
            'give them prefixes that differ before either ends, or start the template with text that tells them apart',
        );
      }
    }
  }
  return out;
}

/**
 * Each adoption rule whose `into.installation` is not one of the config's installations.
 *
 * @example
 * ```ts
 * unknownAdoptInstallations(config.installations, config.published); // ['published[0] "databases": adopt[0].into.installation: ...']
 * ```
 * @param installations - the config's installations.
 * @param published - the published resources, each with where to name it.
 * @returns the problems.
 */
export function unknownAdoptInstallations(installations: readonly KcpInstallation[] | undefined, published: readonly { readonly where: string; readonly entry: PublishedResource }[]): string[] {
  const known = new Set([defaultInstallation, ...(installations ?? []).map((i) => i.name)]);
  return published.flatMap(({ where, entry }) =>
    (entry.adopt ?? []).flatMap((rule, i) => {
      const name = rule.into.installation;
      return name === undefined || known.has(name) ? [] : [`${where}: adopt[${i}].into.installation: "${name}" is not an installation of the config (${[...known].map((k) => `"${k}"`).join(', ')})`];
    }),
  );
}
