-- PromptPacks imported into a deployment's workspace (docs/promptpacks.md): each pack once, with the values
-- its variables were given. At start Clutch turns each into its agents and channel again. JSON,
-- not JSONB: the order of its prompts and members is the order of its agents.
CREATE TABLE "promptpacks" (
    "deployment" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "version" TEXT,
    "pack" JSON NOT NULL,
    "variables" JSON NOT NULL,
    "imported_by" TEXT NOT NULL,
    "imported_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "promptpacks_pkey" PRIMARY KEY ("deployment", "id")
);
