# dynamo-ts image: build stage compiles TypeScript, runtime stage holds production dependencies only.
# Build:  docker build -t dynamo-ts:0.1.0 .      (docs/deploy.md)
ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# Scripts off: `prepare` would run tsc before the sources are copied.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json ./
# Only src/ ships; tsconfig's test/ and bench/ are simply absent here.
COPY src ./src
RUN npx tsc -p tsconfig.json

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
# glibc malloc: memory of huge requests goes back to the system (src/launch/malloc-tuning.ts).
ENV MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=131072 MALLOC_TRIM_THRESHOLD_=131072
WORKDIR /app
COPY package.json package-lock.json ./
# Scripts off for the same reason; zeromq's install step (prebuilt binding check) is rerun by name.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && npm rebuild zeromq \
 && npm cache clean --force
COPY bin ./bin
COPY --from=build /app/dist/src ./dist/src
COPY src/kserve/proto ./src/kserve/proto
COPY README.md ./
COPY docs ./docs
# The image's unprivileged `node` user (uid 1000); nothing under /app is writable by it.
USER node
# 8000: OpenAI HTTP API (/live, /health, /metrics); 8001: KServe gRPC with --grpc-port 8001.
EXPOSE 8000 8001
# Liveness only: /health (readiness, 503 while draining) belongs to the orchestrator's readiness probe.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.DYN_HTTP_PORT || 8000) + '/live').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "--max-semi-space-size=32", "--no-allocation-site-pretenuring", "/app/bin/dynamo-ts.js"]
CMD ["serve", "--http-port", "8000", "--grpc-port", "8001"]
