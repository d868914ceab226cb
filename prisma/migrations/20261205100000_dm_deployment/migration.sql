-- A direct message with an agent answers on the deployment it was opened on (docs/deploy.md "Several nodes").
ALTER TABLE "threads" ADD COLUMN "deployment" TEXT;
