// Prisma CLI configuration. The CLI only needs a URL to be present for `generate`; `migrate deploy`
// uses the real DATABASE_URL wherever the schema engine is available.
import { defineConfig } from 'prisma/config';

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://localhost:5432/unused' },
});
