import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  hkdfSync,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto';

/**
 * Keys the service derives from SECRET_KEY, one per purpose, so a value signed for one
 * purpose never verifies for another (D5, D16 token-kind confusion).
 */
type KeyPurpose =
  | 'access-token'
  | 'dashboard-token'
  | 'webhook-secret-encryption'
  | 'tracking-secret-encryption'
  | 'session-token'
  | 'page-cursor'
  | 'claim-link'
  | 'member-invitation'
  | 'file-link'
  | 'page-session'
  | 'page-csrf'
  | 'dashboard-origin'
  | 'offer-token'
  | 'claim-form-pass';

export function deriveKey(secretKey: Buffer, purpose: KeyPurpose, context = ''): Buffer {
  return Buffer.from(hkdfSync('sha256', secretKey, Buffer.alloc(0), `protection-service:${purpose}:${context}`, 32));
}

/** A credential with 256 random bits behind its prefix (D5 asks for at least 128). */
export function randomCredential(prefix: string): string {
  return `${prefix}${randomBytes(32).toString('base64url')}`;
}

/**
 * The stored form of a secret, token or code (D5): SHA-256. Each value carries 256 random
 * bits, so a fast digest cannot be brute-forced; passwords use argon2id instead.
 */
export function digest(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** Constant-time comparison of a presented value with a stored digest. */
export function matchesDigest(value: string, storedDigest: string): boolean {
  const a = Buffer.from(digest(value), 'hex');
  const b = Buffer.from(storedDigest, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

export function hmacSha256(key: Buffer, message: Uint8Array | string): Buffer {
  return createHmac('sha256', key).update(message).digest();
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** AES-256-GCM for values the service must read back itself (webhook secrets, D5). */
export function encrypt(key: Buffer, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join(
    '.',
  );
}

export function decrypt(key: Buffer, sealed: string): string {
  const [version, iv, tag, body] = sealed.split('.');
  if (version !== 'v1' || !iv || !tag || body === undefined) throw new Error('unreadable ciphertext');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
}

/** Most decrypted secrets one process keeps; past it the cache starts over. */
const CACHED_SECRETS = 10_000;
/** Per server key and purpose: the derived key and the secrets decrypted with it, by ciphertext. */
const decryptedSecrets = new WeakMap<Buffer, Map<KeyPurpose, { key: Buffer; secrets: Map<string, string> }>>();

/**
 * A stored secret decrypted for use on a hot path (signing every webhook attempt, checking every
 * inbound tracking delivery): the key is derived once per process and purpose, and each secret
 * decrypted once. A ciphertext names one secret (a rotation or a new source writes a new
 * ciphertext, each with its own random IV), so the cache never answers a stale one; whether the
 * secret is still in force is always read from the database by the caller.
 */
export function decryptedSecret(secretKey: Buffer, purpose: KeyPurpose, ciphertext: string): string {
  let byPurpose = decryptedSecrets.get(secretKey);
  if (!byPurpose) {
    byPurpose = new Map();
    decryptedSecrets.set(secretKey, byPurpose);
  }
  let cache = byPurpose.get(purpose);
  if (!cache) {
    cache = { key: deriveKey(secretKey, purpose), secrets: new Map() };
    byPurpose.set(purpose, cache);
  }
  let secret = cache.secrets.get(ciphertext);
  if (secret === undefined) {
    secret = decrypt(cache.key, ciphertext);
    if (cache.secrets.size >= CACHED_SECRETS) cache.secrets.clear();
    cache.secrets.set(ciphertext, secret);
  }
  return secret;
}
