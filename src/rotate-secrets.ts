import { configureSecrets, currentSecretsKeyId, resealSecrets } from './auth/secrets.ts';
import { loadConfigOrExit } from './config.ts';
import { openDatabase } from './db/index.ts';

/**
 * `npm run secrets:rotate` (built: `node dist/src/rotate-secrets.js`): re-encrypts every stored
 * secret in place under SECRETS_KEY, opening what was sealed under SECRETS_KEY_PREVIOUS (or stored
 * in clear). The steps of a rotation are in docs/security.md. Prints what it resealed, per table.
 */
async function main() {
  const config = loadConfigOrExit();
  configureSecrets(config.secretsKey, config.secretsKeyPrevious);
  const db = await openDatabase(config);
  try {
    const resealed = await resealSecrets(db);
    console.log(JSON.stringify({ key: currentSecretsKeyId(), resealed }));
  } finally {
    await db.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
