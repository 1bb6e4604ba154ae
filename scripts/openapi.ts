import { writeFile } from 'node:fs/promises';
import {
  CLIENT_TYPES_PATH,
  OPENAPI_JSON_PATH,
  renderOpenApiArtifacts,
} from './openapi-artifacts.js';
import { OPERATION_TABLE_PAGES, renderOperationTables } from './operation-tables.js';

/**
 * `npm run openapi`: rewrites the committed document, the client types generated from it and the
 * docs' tables of operations.
 */
const { json, types } = await renderOpenApiArtifacts();
await writeFile(OPENAPI_JSON_PATH, json);
await writeFile(CLIENT_TYPES_PATH, types);
for (const page of OPERATION_TABLE_PAGES) await writeFile(page, await renderOperationTables(page));
process.stdout.write(
  `Wrote ${OPENAPI_JSON_PATH}, ${CLIENT_TYPES_PATH} and the tables of ${OPERATION_TABLE_PAGES.join(', ')}\n`,
);
