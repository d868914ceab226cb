-- Failed sign-ins per account and per client address, shared by every node (docs/identity.md, "Signing in").
-- CreateTable
CREATE TABLE "sign_in_limits" (
    "key" TEXT NOT NULL,
    "failures" INTEGER NOT NULL DEFAULT 0,
    "window_start" TIMESTAMPTZ(3) NOT NULL,
    "last_failure_at" TIMESTAMPTZ(3) NOT NULL,
    "locked_until" TIMESTAMPTZ(3),

    CONSTRAINT "sign_in_limits_pkey" PRIMARY KEY ("key")
);

