import 'server-only';
import { createReadStream } from 'node:fs';
import { newFileStream } from '../history/capture';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import * as openpgp from 'openpgp';

/**
 * Protected files at rest: a delivery may name a recipient's OpenPGP public key (`encryptTo`, armoured); its
 * file is then encrypted to that key (openpgp, streamed from the spool) and placed as `<file>.pgp`, never in
 * clear at the destination. The signed manifest still describes the clear file and names the key's fingerprint,
 * so a recipient decrypts, then verifies.
 */

export interface Recipient {
  armoured: string;
  /** The primary key's fingerprint, upper-case hex: what the recipient compares with their own. */
  fingerprint: string;
  userIds: string[];
}

/** The recipient's key, checked: a public key (never a private one) that can encrypt. Throws the problem in plain words. */
export async function readRecipient(armoured: string): Promise<Recipient> {
  let key: openpgp.Key;
  try {
    key = await openpgp.readKey({ armoredKey: armoured });
  } catch {
    throw new Error('must be an armoured OpenPGP public key (-----BEGIN PGP PUBLIC KEY BLOCK-----)');
  }
  if (key.isPrivate())
    throw new Error('is a private key: give the recipient’s public key (gpg --armor --export <id>), and keep the private one');
  try {
    await key.getEncryptionKey();
  } catch (error) {
    throw new Error(`has no key that can encrypt now (${(error as Error).message.replace(/\.$/, '')})`);
  }
  return { armoured: key.armor(), fingerprint: key.getFingerprint().toUpperCase(), userIds: key.getUserIDs() };
}

/** Encrypts the file at `source` to the recipient into `target`, streamed (binary OpenPGP message). */
export async function encryptFile(source: string, target: string, armoured: string): Promise<void> {
  const encryptionKeys = await openpgp.readKey({ armoredKey: armoured });
  const message = await openpgp.createMessage({ binary: Readable.toWeb(createReadStream(source)) as ReadableStream<Uint8Array> });
  const encrypted = await openpgp.encrypt({ message, encryptionKeys, format: 'binary' });
  await pipeline(Readable.fromWeb(encrypted as import('node:stream/web').ReadableStream<Uint8Array>), newFileStream(target));
}
