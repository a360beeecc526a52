# The durable-agent worker image (used by docker-compose.yml's `worker` service): hosts the demo agents,
# or yours with `--agents <file>` mounted into the container.
FROM node:22-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY . .
RUN npm run build
ENV NODE_ENV=production
CMD ["node", "apps/cli/bin/durable-agent.js", "worker"]
