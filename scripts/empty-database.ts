import { makeEmptyDatabase } from '../db/embedded/empty-database.js';

/**
 * The build's last step: the migrated empty database a first start on the embedded database
 * unpacks instead of running initdb (db/embedded/empty-database.ts). Its own process, so the
 * memory initdb takes goes when it exits; nothing to do when the migrations and PGlite are
 * the ones the existing archive was made from.
 */
const { file, made } = await makeEmptyDatabase();
process.stdout.write(`${made ? 'Made' : 'Up to date:'} ${file}\n`);
