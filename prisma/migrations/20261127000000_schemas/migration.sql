-- The schema registry (Clutch Protocol section 3, docs/schemas.md): the schemas people and agents
-- add, one row per version. A version never changes once added: a new shape is a new version.
-- The JSON Schema is JSON, not JSONB, so it keeps the key order its author wrote.
CREATE TABLE "schemas" (
    "ref" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "payload_type" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "json_schema" JSON NOT NULL,
    "created_by" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "schemas_pkey" PRIMARY KEY ("ref")
);

CREATE UNIQUE INDEX "schemas_payload_type_key" ON "schemas"("payload_type");
CREATE UNIQUE INDEX "schemas_name_version_key" ON "schemas"("name", "version");

CREATE FUNCTION "clutch_schemas_immutable"() RETURNS trigger LANGUAGE plpgsql AS
  E'BEGIN RAISE EXCEPTION ''a schema version never changes: % is not allowed (add a new version)'', TG_OP\073 END';

CREATE TRIGGER "schemas_immutable" BEFORE UPDATE OR DELETE ON "schemas"
  FOR EACH ROW EXECUTE FUNCTION "clutch_schemas_immutable"();
