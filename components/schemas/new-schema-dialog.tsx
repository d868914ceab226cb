"use client";
/**
 * `NewSchemaDialog`: adds a payload type's schema to the registry (`POST /api/schemas`,
 * docs/schemas.md): its payload type (`<domain>.<name>.v<version>`), a description and its JSON
 * Schema. "New version" opens it with the next version's payload type and the current schema to
 * edit. The JSON is checked as it is typed; the server's refusal (a version that exists, a JSON
 * Schema that is not one) is shown as it says it, with the field it points at. On success the
 * page opens the new schema.
 */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useId, useMemo, useState } from "react";
import { addSchema } from "@/components/live/api";
import { queryKeys } from "@/components/live/query-keys";
import { Button, inputClass } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { schemaHref } from "./model";

/** What the form starts with (empty for a new payload type; the next version and current schema for "New version"). */
export interface NewSchemaStart {
  payload_type?: string;
  description?: string;
  json_schema?: unknown;
}

const EMPTY_SCHEMA = { type: "object", properties: {}, required: [] };

/** The dialog; open while `start` is not null. */
export function NewSchemaDialog({ start, onClose }: { start: NewSchemaStart | null; onClose: () => void }) {
  return (
    <Dialog open={start !== null} onClose={onClose} title={start?.payload_type ? `New version: ${start.payload_type}` : "New payload type"} description="A version never changes once added: a new shape is a new version." className="max-w-2xl">
      {start && <NewSchemaForm start={start} onClose={onClose} />}
    </Dialog>
  );
}

function NewSchemaForm({ start, onClose }: { start: NewSchemaStart; onClose: () => void }) {
  const router = useRouter();
  const client = useQueryClient();
  const [payloadType, setPayloadType] = useState(start.payload_type ?? "");
  const [description, setDescription] = useState(start.description ?? "");
  const [text, setText] = useState(JSON.stringify(start.json_schema ?? EMPTY_SCHEMA, null, 2));
  const ids = { type: useId(), desc: useId(), json: useId(), err: useId(), jsonErr: useId() };
  const parsed = useMemo((): { ok: true; value: unknown } | { ok: false; message: string } => {
    try {
      return { ok: true, value: JSON.parse(text) };
    } catch (err) {
      return { ok: false, message: (err as Error).message };
    }
  }, [text]);
  const mutation = useMutation({
    mutationFn: () => addSchema({ payload_type: payloadType.trim(), description: description.trim(), json_schema: parsed.ok ? parsed.value : null }),
    onSuccess: async (schema) => {
      await client.invalidateQueries({ queryKey: queryKeys.schemas });
      onClose();
      router.push(schemaHref(schema.ref));
    },
  });
  const error = mutation.error?.message ?? null;
  const onType = /payload_type|payload type|exists/.test(error ?? "");

  return (
    <form
      className="space-y-3 px-5 pb-5 pt-3"
      onSubmit={(e) => {
        e.preventDefault();
        if (!parsed.ok || !payloadType.trim() || mutation.isPending) return;
        mutation.mutate();
      }}
    >
      <div>
        <label htmlFor={ids.type} className="mb-1 block text-[13px] font-semibold">
          Payload type
        </label>
        <input
          id={ids.type}
          value={payloadType}
          onChange={(e) => {
            setPayloadType(e.target.value);
            mutation.reset();
          }}
          placeholder="sales.forecast.v1"
          autoComplete="off"
          spellCheck={false}
          required
          aria-invalid={onType || undefined}
          aria-describedby={onType ? ids.err : undefined}
          className={`${inputClass} font-mono`}
        />
        <p className="mt-1 text-[11.5px] text-fg-subtle">
          <code className="font-mono">&lt;domain&gt;.&lt;name&gt;.v&lt;version&gt;</code> in lowercase; its ref is <code className="font-mono">schema://clutch/&lt;domain&gt;/&lt;name&gt;@&lt;version&gt;</code>.
        </p>
      </div>
      <div>
        <label htmlFor={ids.desc} className="mb-1 block text-[13px] font-semibold">
          Description <span className="font-normal text-fg-muted">(optional)</span>
        </label>
        <input id={ids.desc} value={description} onChange={(e) => setDescription(e.target.value)} maxLength={500} placeholder="What a payload of this type holds" className={inputClass} />
      </div>
      <div>
        <label htmlFor={ids.json} className="mb-1 block text-[13px] font-semibold">
          JSON Schema <span className="font-normal text-fg-muted">(draft 2020-12, of an object)</span>
        </label>
        <textarea
          id={ids.json}
          value={text}
          onChange={(e) => {
            setText(e.target.value);
            mutation.reset();
          }}
          rows={14}
          spellCheck={false}
          aria-invalid={!parsed.ok || (Boolean(error) && !onType) || undefined}
          aria-describedby={!parsed.ok ? ids.jsonErr : error && !onType ? ids.err : undefined}
          className="scroll-slim block w-full resize-y rounded-md border border-line-strong bg-sunken px-2.5 py-2 font-mono text-[12px] leading-[18px] text-fg focus:border-accent focus:outline-none focus:ring-2 focus:ring-accent/25"
        />
        {!parsed.ok && (
          <p id={ids.jsonErr} className="mt-1 text-[12px] text-danger">
            Not JSON yet: {parsed.message}
          </p>
        )}
      </div>
      {error && (
        <p id={ids.err} role="alert" className="rounded-md bg-danger/10 px-3 py-2 text-[13px] text-danger">
          {error}
        </p>
      )}
      <div className="flex justify-end gap-2 pt-1">
        <Button onClick={onClose}>Cancel</Button>
        <Button type="submit" variant="primary" disabled={!parsed.ok || !payloadType.trim() || mutation.isPending}>
          {mutation.isPending ? "Adding…" : "Add schema"}
        </Button>
      </div>
    </form>
  );
}
