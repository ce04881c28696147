// The sharding view: one set of live members, its id, and who owns which cluster under it; plus
// the names, label and annotations of the membership Leases that make the view observable. Pure:
// every replica that sees the same members computes the same id and the same owners.
import type { RendezvousMember } from './rendezvous.js';
import { rendezvousOwner } from './rendezvous.js';

// From getBuiltinModule, not `import`: see client/h2-pool.ts.
const { createHash } = process.getBuiltinModule('node:crypto');

/** Label on every membership Lease; its value names the replica set (from the prefix). @example `'rxfleet.io/replicas'` */
export const replicasLabel = 'rxfleet.io/replicas';
/** Annotation: the member's weight, a positive number (absent or invalid reads as 1). @example `'rxfleet.io/weight'` */
export const weightAnnotation = 'rxfleet.io/weight';
/** Annotation: the id of the last view this member has fully acted on (the ack barrier). @example `'rxfleet.io/acknowledged-view'` */
export const acknowledgedViewAnnotation = 'rxfleet.io/acknowledged-view';

/** A set of live members and who owns what under it. @example `shardView(members).owner('east')` */
export interface ShardView {
  /** First 16 hex characters of sha256 over the sorted `identity:weight` lines: equal views, equal ids. */
  readonly id: string;
  /** The members, sorted by identity. */
  readonly members: readonly RendezvousMember[];
  /** The owner of a cluster under this view (weighted rendezvous); undefined when the view is empty. */
  owner(name: string): string | undefined;
}

const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');

/**
 * The view of a set of live members. Duplicate identities keep their first entry.
 *
 * @example
 * ```ts
 * const view = shardView([{ identity: 'b', weight: 1 }, { identity: 'a', weight: 2 }]);
 * view.id; // 16 hex characters, the same in every replica
 * view.owner('east'); // 'a' or 'b'
 * ```
 * @param liveMembers - the live members (self included when its own lease is valid).
 * @returns the view.
 * @throws ConfigError when a weight is not finite and > 0.
 */
export function shardView(liveMembers: readonly RendezvousMember[]): ShardView {
  const byIdentity = new Map<string, RendezvousMember>();
  for (const m of liveMembers) if (!byIdentity.has(m.identity)) byIdentity.set(m.identity, { identity: m.identity, weight: m.weight });
  const members = [...byIdentity.values()].sort((a, b) => (a.identity < b.identity ? -1 : a.identity > b.identity ? 1 : 0));
  // Checks the weights once, up front, rather than on the first owner() call.
  rendezvousOwner(members, '');
  // One line per member: identities cannot contain '\n' usefully, and ':' before a number is unambiguous.
  const id = sha256(members.map((m) => `${m.identity}:${m.weight}`).join('\n')).slice(0, 16);
  return Object.freeze({ id, members: Object.freeze(members), owner: (name: string) => rendezvousOwner(members, name) });
}

/** What {@link viewConfirmed} needs of this replica. @example `{ identity: 'replica-a', publishedAck: view.id }` */
export interface SelfAck {
  /** This replica's identity. */
  readonly identity: string;
  /** The acknowledged view this replica's last SUCCESSFUL renew published (not merely asked for); undefined before any. */
  readonly publishedAck: string | undefined;
}

/** What {@link viewConfirmed} needs of a live peer. @example `{ identity: 'replica-b', acknowledgedView: 'a1b2c3d4e5f60718' }` */
export interface PeerAck {
  /** The peer's identity. */
  readonly identity: string;
  /** The peer's acknowledged-view annotation as last observed; undefined when absent. */
  readonly acknowledgedView: string | undefined;
}

/**
 * Whether a view is confirmed: every live member has acted on it, so starting the clusters this
 * replica owns under it cannot overlap a previous owner. True only when this replica is in the
 * view, the live peers (other than self) are exactly the view's other members, each of them has
 * acknowledged `view.id`, and this replica's published ack is `view.id`. A peer missing from
 * `peers` is not live, and a live peer outside the view means the view is already stale: both
 * answer false.
 *
 * @example
 * ```ts
 * const view = shardView([{ identity: 'a', weight: 1 }, { identity: 'b', weight: 1 }]);
 * viewConfirmed(view, { identity: 'a', publishedAck: view.id }, [{ identity: 'b', acknowledgedView: view.id }]); // true
 * ```
 * @param view - the view to check.
 * @param self - this replica and its published ack.
 * @param peers - the live members as observed (self's own entry, if present, is ignored).
 * @returns whether the view is confirmed.
 */
export function viewConfirmed(view: ShardView, self: SelfAck, peers: readonly PeerAck[]): boolean {
  if (self.publishedAck !== view.id) return false;
  if (!view.members.some((m) => m.identity === self.identity)) return false;
  const others = new Map<string, PeerAck>();
  for (const p of peers) if (p.identity !== self.identity) others.set(p.identity, p);
  if (others.size !== view.members.length - 1) return false;
  return view.members.every((m) => m.identity === self.identity || others.get(m.identity)?.acknowledgedView === view.id);
}

// Kubernetes' IsDNS1123Subdomain: dot-separated labels, each alphanumeric at both ends.
const subdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const labelValue = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

/** Lower-cases, turns anything but [-a-z0-9] into '-' (valid in both a subdomain and a label value), cuts to `max`, trims '-' ends. */
function sanitize(s: string, max: number): string {
  return s
    .toLowerCase()
    .replace(/[^-a-z0-9]/g, '-')
    .slice(0, max)
    .replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, '');
}

/** `prefix` itself when `fits`, else a readable part of it plus 8 hex of its hash (distinct prefixes stay distinct). */
function safePrefix(prefix: string, max: number, fits: (s: string) => boolean): string {
  if (prefix.length <= max && fits(prefix)) return prefix;
  const head = sanitize(prefix, max - 9);
  const tail = sha256(prefix).slice(0, 8);
  return head === '' ? tail : `${head}-${tail}`;
}

/**
 * The membership Lease name of a replica: `${prefix}-${first 10 hex of sha256(identity)}`, always a
 * valid DNS-1123 subdomain: a prefix that is too long (over 242 characters) or not a valid
 * subdomain itself is shortened/cleaned and suffixed with 8 hex of its own hash.
 *
 * @example
 * ```ts
 * memberLeaseName('my-controller', 'web-7d9f-1a2b3c'); // 'my-controller-' + 10 hex
 * ```
 * @param prefix - the replica set's name (ReplicaLeaseOptions.name; default the controller name).
 * @param identity - the replica's identity.
 * @returns the Lease name.
 */
export function memberLeaseName(prefix: string, identity: string): string {
  // 253 (subdomain limit) - 11 ('-' + 10 hex).
  return `${safePrefix(prefix, 242, (s) => subdomain.test(s))}-${sha256(identity).slice(0, 10)}`;
}

/**
 * The value of the {@link replicasLabel} on a replica set's membership Leases: the prefix when it
 * is a valid label value (at most 63 characters), else a cleaned part of it plus 8 hex of its hash.
 *
 * @example `memberLabelValue('my-controller') // 'my-controller'`
 * @param prefix - the replica set's name.
 * @returns the label value.
 */
export function memberLabelValue(prefix: string): string {
  return safePrefix(prefix, 63, (s) => labelValue.test(s));
}

/**
 * The label selector that lists a replica set's membership Leases.
 *
 * @example `memberLabelSelector('my-controller') // 'rxfleet.io/replicas=my-controller'`
 * @param prefix - the replica set's name.
 * @returns the selector.
 */
export function memberLabelSelector(prefix: string): string {
  return `${replicasLabel}=${memberLabelValue(prefix)}`;
}
