-- Tasks of an imported copy of a run are nobody's work (docs/identity.md "Imported runs are copies that never act").
ALTER TABLE "tasks" ADD COLUMN "imported" BOOLEAN NOT NULL DEFAULT false;
