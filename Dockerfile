# syntax=docker/dockerfile:1
# croupier: one stateless instance; PostgreSQL, Redis and shared uploads come from outside
# (compose.yaml, docs/production.md). Sources are TypeScript run by Node 24's type stripping:
# the API has no build step; the back office's static files are built in the `web` stage.

FROM node:24-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# devDependencies (the `node` pin, test and lint tools) stay out: the image's own Node 24 runs it.
# --ignore-scripts also skips bin/postinstall.js, the embedded database's template: images run on
# PostgreSQL (docs/deployment.md).
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

# The back office (web/admin/) is built with devDependencies (vite, react-admin) in its own stage;
# only its output, static files, reaches the image (docs/decisions/0009-back-office-build.md).
FROM node:24-bookworm-slim AS web
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY bin ./bin
COPY web ./web
RUN node bin/build-web.js

FROM node:24-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8000 \
    DATA_DIR=/data \
    LOG_FORMAT=json
WORKDIR /app
COPY --from=deps --chown=root:root /app/node_modules ./node_modules
COPY --chown=root:root package.json package-lock.json ./
COPY --chown=root:root bin ./bin
COPY --chown=root:root src ./src
COPY --chown=root:root migrations ./migrations
COPY --chown=root:root db ./db
COPY --from=web --chown=root:root /app/web/admin/dist ./web/admin/dist
# The code is root's and read-only to the service; only DATA_DIR (uploads, mail outbox, and the
# embedded database when DATABASE_URL is unset) is writable, by the unprivileged `node` user.
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8000
# No curl in the slim image: Node's fetch asks /health, liveness only (the process answers); /ready also
# checks the database and Redis and is for the load balancer (docs/production.md).
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8000) + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node itself is PID 1 and receives SIGTERM: `serve` drains requests and closes gracefully.
CMD ["node", "--liftoff-only", "bin/croupier.js", "serve"]
