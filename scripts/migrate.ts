/** `npm run db:migrate`: apply migrations to DATABASE_URL (required). */
import { migrate } from "../server/db/migrate";

const url = process.env.DATABASE_URL;
if (!url) {
  console.error("DATABASE_URL is not set. The embedded database migrates itself when the server starts.");
  process.exit(2);
}
process.stdout.write(await migrate(url));
