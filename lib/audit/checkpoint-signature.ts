import { createHash, createPrivateKey, createPublicKey, type KeyObject, sign, verify } from 'node:crypto';

import canonicalize from 'canonicalize';

/**
 * A signed checkpoint of the audit chain: its head (the seq and hash of its newest record) when it
 * was signed, with an Ed25519 signature made by a key the database does not hold. What the API
 * answers and `cgp audit verify` checks; no database or settings here, so the CLI verifies offline.
 */
export interface Checkpoint {
  readonly seq: number;
  readonly hash: string;
  /** ISO 8601. */
  readonly signedAt: string;
  /** Which key signed it: the first 16 hex digits of the SHA-256 of its public key (DER). */
  readonly keyId: string;
  /** base64 Ed25519 signature of the RFC 8785 canonical JSON of { seq, hash, signedAt, keyId }. */
  readonly signature: string;
}

/** The PKCS #8 DER header of an Ed25519 private key, before its 32-byte seed (RFC 8410). */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/** The key pair of a 32-byte seed. */
export function signingKeyOf(seed: Buffer): { privateKey: KeyObject; publicKey: KeyObject } {
  if (seed.length !== 32) throw new Error(`an audit signing key is 32 bytes (base64), not ${seed.length}`);
  const privateKey = createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  return { privateKey, publicKey: createPublicKey(privateKey) };
}

/** The public key as PEM (SPKI), as the API answers it and an auditor pins it. */
export const publicKeyPem = (publicKey: KeyObject): string => publicKey.export({ type: 'spki', format: 'pem' }).toString();

export const keyIdOf = (publicKey: KeyObject): string =>
  createHash('sha256')
    .update(publicKey.export({ type: 'spki', format: 'der' }))
    .digest('hex')
    .slice(0, 16);

const signedBytes = ({ seq, hash, signedAt, keyId }: Omit<Checkpoint, 'signature'>) => Buffer.from(canonicalize({ seq, hash, signedAt, keyId }) ?? '', 'utf8');

export function signCheckpoint(head: { seq: number; hash: string }, signedAt: Date, key: { privateKey: KeyObject; publicKey: KeyObject }): Checkpoint {
  const unsigned = { seq: head.seq, hash: head.hash, signedAt: signedAt.toISOString(), keyId: keyIdOf(key.publicKey) };
  return { ...unsigned, signature: sign(null, signedBytes(unsigned), key.privateKey).toString('base64') };
}

/** Whether the checkpoint was signed by this public key (PEM) and is unchanged since. */
export function checkpointHolds(checkpoint: Checkpoint, publicKey: string): boolean {
  try {
    const key = createPublicKey(publicKey);
    return keyIdOf(key) === checkpoint.keyId && verify(null, signedBytes(checkpoint), key, Buffer.from(checkpoint.signature, 'base64'));
  } catch {
    return false;
  }
}
