-- Workflows of a deployment (Clutch Protocol section 3.4, docs/workflows.md): each workflow's YAML or JSON as its
-- author wrote it, and its version, counted up at every save. Runs keep the shape they started from.
CREATE TABLE "workflows" (
    "deployment" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "source" TEXT NOT NULL,
    "updated_by" TEXT NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "workflows_pkey" PRIMARY KEY ("deployment", "name")
);
