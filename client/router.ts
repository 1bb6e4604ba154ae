/**
 * The service's router type, for clients. `npm run build` writes this file's declaration out in
 * full (scripts/client-types.ts): the server's router type carries its request context, whose
 * types reach into drizzle-orm and PGlite, and the published one must not, so that a front-end
 * checking libraries strictly (`skipLibCheck: false`) compiles none of the server's packages.
 */
export type { AppRouter } from '../server/surfaces/trpc/router.js';
