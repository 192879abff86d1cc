# syntax=docker/dockerfile:1
# The Protection Service API. Build from the repository root:
#   docker build -t protection-service .
# One image runs every role: the API (`node --max-semi-space-size=32 --import tsx src/main.ts`,
# the default; README, "Running in production") and the
# webhook delivery process (`node --import tsx src/worker.ts`). See deploy/compose.yaml.
# Each is a supervisor (PID 1) that runs and replaces its serving processes (README, "Failures").

FROM node:24-bookworm-slim AS build
ENV CI=true
RUN npm install --global pnpm@10.34.9
WORKDIR /src
# Dependencies first, from the lockfile alone, so a source change reuses this layer.
COPY pnpm-lock.yaml pnpm-workspace.yaml ./
# The lockfile names the patches it applies (patches/, see docs/architecture.md).
COPY patches ./patches
RUN pnpm fetch
COPY . .
RUN pnpm install --frozen-lockfile --offline
# The dashboard's pages call the API through the SDK (D50): the image runs its build, as partners do.
RUN pnpm build
# A lean production install of the server alone: its runtime dependencies and the workspace
# packages it uses (contract, migrations, the SDK's build), no dev tools, no tests.
RUN pnpm --config.inject-workspace-packages=true --filter @protection-service/server deploy --prod --offline /app

FROM node:24-bookworm-slim AS runtime
WORKDIR /app
# Owned by root, run as `node`: the process cannot change its own code.
COPY --from=build /app /app
USER node
ENV PORT=3000 HOST=0.0.0.0
EXPOSE 3000 9464
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/readyz').then((r) => process.exit(r.status === 200 ? 0 : 1), () => process.exit(1))"]
CMD ["node", "--max-semi-space-size=32", "--import", "tsx", "src/main.ts"]
