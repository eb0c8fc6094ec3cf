// Offline tokens at rest: libsodium secretbox (XSalsa20-Poly1305) with the key from configuration
// (SHOP_TOKEN_KEY, or one derived from the app secret). Stored as base64(nonce || box).
import sodium from 'libsodium-wrappers';

export async function sealToken(key: Uint8Array, token: string): Promise<string> {
  await sodium.ready;
  const nonce = sodium.randombytes_buf(sodium.crypto_secretbox_NONCEBYTES);
  const box = sodium.crypto_secretbox_easy(sodium.from_string(token), nonce, key);
  const out = new Uint8Array(nonce.length + box.length);
  out.set(nonce, 0);
  out.set(box, nonce.length);
  return sodium.to_base64(out, sodium.base64_variants.ORIGINAL);
}

/** The token, or null when the box does not open with this key (a changed key: the shop exchanges again). */
export async function openToken(key: Uint8Array, sealed: string): Promise<string | null> {
  await sodium.ready;
  try {
    const raw = sodium.from_base64(sealed, sodium.base64_variants.ORIGINAL);
    const n = sodium.crypto_secretbox_NONCEBYTES;
    if (raw.length <= n) return null;
    return sodium.to_string(sodium.crypto_secretbox_open_easy(raw.subarray(n), raw.subarray(0, n), key));
  } catch {
    return null;
  }
}
