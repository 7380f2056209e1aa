import path from 'node:path';
import { closeStore, getStore } from '../lib/store';
import { storeSettings } from '../lib/config';
import { publishedKeys } from '../lib/proof/signer';
import { recordAudit } from '../lib/audit/record';
import { listSigningKeys, markKeyCompromised } from '../lib/store/signing-keys';
import { EMBEDDED_KEY_FILE, replaceKey, writeNewKey } from '../lib/proof/keys';

/**
 * `npm run proof -- keys`: the JWK Set of every key the portal has signed with (what /api/proof/keys serves),
 * to hand to recipients through a channel of your own. `npm run proof -- new-key --out <file>`: a new Ed25519
 * key, owner-only, for PORTAL_SIGNING_KEY_FILE; instances given it sign with it from their next start, and the
 * key before it is retired (kept in the set). `npm run proof -- new-key` on the embedded database replaces the
 * data directory's key (the portal must be restarted; the old private key is gone, its public half stays published).
 * `npm run proof -- compromised <kid>`: the key's private half may be in other hands, so every signature by it
 * fails from now on, whenever it claims to have been made (audited; recipients see it in the published set).
 */

const [command, flag, out] = process.argv.slice(2);
const exit = async (code: number) => {
  await closeStore();
  process.exit(code);
};

try {
  if (command === 'keys') {
    const { db } = await getStore({ attempts: 3, log: (line) => console.error(line) });
    console.log(JSON.stringify(await publishedKeys(db), null, 2));
  } else if (command === 'new-key' && (flag === undefined || (flag === '--out' && out))) {
    const settings = storeSettings();
    if (!out && settings.DATABASE_URL) {
      console.error('With DATABASE_URL, name the file: npm run proof -- new-key --out <file> (then give it to every instance).');
      await exit(2);
    }
    const key = out ? await writeNewKey(path.resolve(out)) : await replaceKey(path.join(settings.PORTAL_DATA_DIR, EMBEDDED_KEY_FILE));
    console.log(
      `new signing key ${key.kid} in ${out ?? path.join(settings.PORTAL_DATA_DIR, EMBEDDED_KEY_FILE)} (owner-only); it signs from the next start`,
    );
  } else if (command === 'compromised' && flag && !out) {
    const { db } = await getStore({ attempts: 3, log: (line) => console.error(line) });
    const current = (await listSigningKeys(db)).find((key) => key.kid === flag && key.retiredAt === null);
    if (!(await markKeyCompromised(db, flag))) {
      console.error(`There is no signing key ${flag} (npm run proof -- keys lists them).`);
      await exit(1);
    }
    await recordAudit({ actor: 'cli', action: 'proof.compromised', target: flag, outcome: 'complete' });
    console.log(
      `signing key ${flag} marked compromised: nothing it signed verifies any more${current ? '; it was the current key, so give every instance a new one (npm run proof -- new-key) and restart them' : ''}`,
    );
  } else {
    console.error('usage: npm run proof -- keys | new-key [--out <file>] | compromised <kid>');
    await exit(2);
  }
  await exit(0);
} catch (error) {
  console.error((error as Error).message);
  await exit(1);
}
