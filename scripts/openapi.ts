import { writeFile } from 'node:fs/promises';
import {
  CLIENT_TYPES_PATH,
  OPENAPI_JSON_PATH,
  renderOpenApiArtifacts,
} from './openapi-artifacts.js';

/** `npm run openapi`: rewrites the committed document and the client types generated from it. */
const { json, types } = await renderOpenApiArtifacts();
await writeFile(OPENAPI_JSON_PATH, json);
await writeFile(CLIENT_TYPES_PATH, types);
process.stdout.write(`Wrote ${OPENAPI_JSON_PATH} and ${CLIENT_TYPES_PATH}\n`);
