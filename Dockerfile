# syntax=docker/dockerfile:1
# a2a-router: the router, its CLI, the agent SDK and the example agents in one image.
#   docker build -t a2a-router .
#   docker run -p 8080:8080 -e ROUTER_API_KEYS=change-me a2a-router
# A non-loopback bind needs client API keys (or --allow-open): see CONTRACT section 1.

FROM node:24-slim AS build
WORKDIR /app
# better-sqlite3 installs a prebuilt binary; the toolchain is only its fallback when none fits.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
# --ignore-scripts: "prepare" would build before the sources are here; the native module is built next.
RUN npm ci --ignore-scripts && npm rebuild better-sqlite3
COPY tsconfig.json tsconfig.build.json ./
COPY schemas ./schemas
COPY router ./router
COPY hub ./hub
COPY agents ./agents
RUN npm run build && npm prune --omit=dev --ignore-scripts

FROM node:24-slim
ENV NODE_ENV=production
# Two malloc arenas rather than one per thread that allocates (the SQLite store's writer and checkpoint threads,
# libuv's pool): after large bodies, glibc keeps less freed memory in RSS (six 10 MiB echoes on SQLite left
# 45-70 MiB less, at the same peak; docs/benchmarks.md, "Large bodies").
ENV MALLOC_ARENA_MAX=2
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/schemas ./schemas
# The chat page is served from its static files (router/faces/chat-page/static), not from dist/.
COPY --from=build /app/router/faces/chat-page/static ./router/faces/chat-page/static
# The default store is sqlite:./data/router.db; mount a volume here to keep it.
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 8080
# Node flags: router/node-flags.ts.
CMD ["node", "--max-semi-space-size=16", "--expose-gc", "dist/router/bin.js", "serve", "--host", "0.0.0.0"]
