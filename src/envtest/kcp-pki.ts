// The credentials of a sharded kcp, made the way kcp's own sharded test server makes them: a serving
// CA that signs every server's certificate (shards, cache server, front-proxy), a client CA whose
// certificates carry users and groups (kcp's admin, the shards' privileged identity, the logical-
// cluster admins), a request-header CA for the front-proxy's own client certificate (it forwards
// the caller's user and groups in X-Remote-* headers), and one service-account key pair shared by
// every shard. Client certificates rather than tokens: they hold across restarts and every shard
// accepts them, with no token file to keep in step. Kubeconfigs embed the PEM data.
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { openssl } from './certs.js';

/**
 * A certificate and its key, as PEM files.
 *
 * @example
 * ```ts
 * const pair: CertPair = { certFile: '/tmp/pki/admin.crt', keyFile: '/tmp/pki/admin.key' };
 * ```
 */
export interface CertPair {
  readonly certFile: string;
  readonly keyFile: string;
}

/**
 * The files of a sharded kcp's PKI, written by {@link writeShardedKcpPki}.
 *
 * @example
 * ```ts
 * const pki: ShardedKcpPki = writeShardedKcpPki('/tmp/rxfleet-kcp-sharded-x/pki');
 * ```
 */
export interface ShardedKcpPki {
  /** Verifies every server of the set. */
  readonly servingCaFile: string;
  /** One serving certificate for 127.0.0.1 and localhost, used by every server (they differ by port only). */
  readonly serving: CertPair;
  /** Verifies client certificates (`--client-ca-file` of shards and front-proxy). */
  readonly clientCaFile: string;
  /** Verifies the front-proxy's client certificate (`--requestheader-client-ca-file`). */
  readonly requestHeaderCaFile: string;
  /** The front-proxy's client certificate towards the shards (signed by the request-header CA). */
  readonly frontProxyClient: CertPair;
  /** `kcp-admin` in `system:kcp:admin`: what users of the set are given. */
  readonly admin: CertPair;
  /** `shard-admin` in `system:masters`: the front-proxy's and the shards' privileged identity. */
  readonly shardAdmin: CertPair;
  /** In `system:kcp:logical-cluster-admin` (the workspace scheduler, towards shards). */
  readonly logicalClusterAdmin: CertPair;
  /** In `system:kcp:external-logical-cluster-admin` (workspace controllers, through the front-proxy). */
  readonly externalLogicalClusterAdmin: CertPair;
  /** Service-account token keys, shared by every shard. */
  readonly saKeyFile: string;
  readonly saPubFile: string;
}

const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

function makeCa(dir: string, name: string): string {
  openssl(
    ['req', '-x509', ...EC, '-keyout', `${name}.key`, '-out', `${name}.crt`, '-days', '7', '-subj', `/CN=rxfleet-envtest-${name}`,
      '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'],
    dir,
  );
  return join(dir, `${name}.crt`);
}

/** A certificate for `subject` signed by CA `ca` (its files `<ca>.crt`/`<ca>.key` in `dir`), with `ext` lines. */
function signed(dir: string, ca: string, name: string, subject: string, ext: readonly string[]): CertPair {
  openssl(['req', ...EC, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', subject], dir);
  writeFileSync(join(dir, `${name}.ext`), [...ext, ''].join('\n'));
  openssl(['x509', '-req', '-in', `${name}.csr`, '-CA', `${ca}.crt`, '-CAkey', `${ca}.key`, '-CAcreateserial', '-out', `${name}.crt`, '-days', '7', '-extfile', `${name}.ext`], dir);
  return { certFile: join(dir, `${name}.crt`), keyFile: join(dir, `${name}.key`) };
}

const CLIENT = ['basicConstraints=CA:FALSE', 'keyUsage=critical,digitalSignature,keyEncipherment', 'extendedKeyUsage=clientAuth'];

function client(dir: string, ca: string, name: string, user: string, group: string | undefined): CertPair {
  return signed(dir, ca, name, `${group === undefined ? '' : `/O=${group}`}/CN=${user}`, CLIENT);
}

/**
 * Writes the CAs, certificates and keys of a sharded kcp into `dir` (valid 7 days).
 *
 * @example
 * ```ts
 * const pki = writeShardedKcpPki('/tmp/pki');
 * console.log(pki.admin.certFile); // '/tmp/pki/kcp-admin.crt'
 * ```
 * @param dir - an existing, empty directory.
 * @returns the files written.
 */
export function writeShardedKcpPki(dir: string): ShardedKcpPki {
  const servingCaFile = makeCa(dir, 'serving-ca');
  const clientCaFile = makeCa(dir, 'client-ca');
  const requestHeaderCaFile = makeCa(dir, 'requestheader-ca');
  const serving = signed(dir, 'serving-ca', 'serving', '/CN=kcp', [
    'basicConstraints=CA:FALSE',
    'keyUsage=critical,digitalSignature,keyEncipherment',
    'extendedKeyUsage=serverAuth',
    'subjectAltName=IP:127.0.0.1,DNS:localhost',
  ]);
  const sa = generateKeyPairSync('rsa', { modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });
  const saKeyFile = join(dir, 'service-account.key');
  const saPubFile = join(dir, 'service-account.pub');
  writeFileSync(saKeyFile, sa.privateKey, { mode: 0o600 });
  writeFileSync(saPubFile, sa.publicKey);
  return {
    servingCaFile,
    serving,
    clientCaFile,
    requestHeaderCaFile,
    frontProxyClient: client(dir, 'requestheader-ca', 'front-proxy-client', 'kcp-front-proxy', undefined),
    admin: client(dir, 'client-ca', 'kcp-admin', 'kcp-admin', 'system:kcp:admin'),
    shardAdmin: client(dir, 'client-ca', 'shard-admin', 'shard-admin', 'system:masters'),
    logicalClusterAdmin: client(dir, 'client-ca', 'logical-cluster-admin', 'logical-cluster-admin', 'system:kcp:logical-cluster-admin'),
    externalLogicalClusterAdmin: client(dir, 'client-ca', 'external-logical-cluster-admin', 'external-logical-cluster-admin', 'system:kcp:external-logical-cluster-admin'),
    saKeyFile,
    saPubFile,
  };
}

/**
 * One context of a client-certificate kubeconfig: its name and server (undefined: none, as the
 * front-proxy's shards kubeconfig wants, which fills in each shard's URL).
 *
 * @example
 * ```ts
 * const ctx: CertKubeconfigContext = { name: 'root', server: 'https://127.0.0.1:6443/clusters/root' };
 * ```
 */
export interface CertKubeconfigContext {
  readonly name: string;
  readonly server: string | undefined;
}

/**
 * Writes a kubeconfig (JSON, which is valid YAML; mode 0600) whose contexts all use `user`'s
 * client certificate and verify servers against `caFile`, PEM data embedded; the first context is
 * the current one.
 *
 * @example
 * ```ts
 * writeCertKubeconfig('/tmp/admin.kubeconfig', pki.servingCaFile, pki.admin, [{ name: 'root', server: 'https://127.0.0.1:6443/clusters/root' }]);
 * ```
 * @param path - the file to write.
 * @param caFile - the CA that verifies the servers.
 * @param user - the client certificate and key.
 * @param contexts - one cluster and context each.
 */
export function writeCertKubeconfig(path: string, caFile: string, user: CertPair, contexts: readonly CertKubeconfigContext[]): void {
  const ca = readFileSync(caFile).toString('base64');
  const userName = basename(user.certFile, '.crt');
  const doc = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: contexts.map((c) => ({ name: c.name, cluster: { ...(c.server === undefined ? {} : { server: c.server }), 'certificate-authority-data': ca } })),
    users: [{ name: userName, user: { 'client-certificate-data': readFileSync(user.certFile).toString('base64'), 'client-key-data': readFileSync(user.keyFile).toString('base64') } }],
    contexts: contexts.map((c) => ({ name: c.name, context: { cluster: c.name, user: userName } })),
    'current-context': contexts[0]?.name ?? '',
    preferences: {},
  };
  writeFileSync(path, `${JSON.stringify(doc, null, 2)}\n`, { mode: 0o600 });
}
