import { defineConfig } from 'drizzle-kit';
import { DATABASE_CASING } from './db/schema.js';

export default defineConfig({
  dialect: 'postgresql',
  schema: ['./db/schema.ts', './server/webhooks/storage/schema.ts'],
  out: './drizzle',
  casing: DATABASE_CASING,
  dbCredentials: { url: process.env.DATABASE_URL ?? 'postgres://127.0.0.1:5432/petstore' },
});
