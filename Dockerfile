# syntax=docker/dockerfile:1

# Build: compile TypeScript to dist/ with the full dependency set, then keep only what runs.
# No dependency's install script runs (one would phone home); our own patches (patches/,
# see README) are applied explicitly, since --ignore-scripts also skips our postinstall.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY patches ./patches
RUN npm ci --no-audit --no-fund --ignore-scripts && npx patch-package --error-on-fail
COPY tsconfig.json tsconfig.build.json ./
COPY server ./server
COPY client ./client
COPY db ./db
COPY scripts ./scripts
COPY drizzle ./drizzle
RUN npm run build && npm prune --omit=dev --no-audit --no-fund --ignore-scripts

# Runtime: production dependencies (as patched) and the compiled output only, run as the
# unprivileged "node" user, on Node 24 LTS. On the embedded database (no DATABASE_URL) the data
# lives in the /data volume; the first start writes its API key to /data/pglite/first-api-key
# (docker exec CONTAINER cat /data/pglite/first-api-key, then delete the file).
# Metrics: on METRICS_PORT when set, bound to METRICS_HOST (0.0.0.0 here, so a scraper outside
# the container reaches it through the published port; publish it only to the operator's network).
FROM node:24-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    METRICS_HOST=0.0.0.0 \
    PGLITE_DIR=/data/pglite
WORKDIR /app
COPY package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000 9464
# Slim images have no curl; node's own fetch asks the readiness endpoint.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node directly (not npm start) so SIGTERM reaches the service and no build runs at start.
CMD ["node", "--max-old-space-size=256", "--no-allocation-site-pretenuring", "dist/server/main.js"]
