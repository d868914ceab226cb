"use client";
/**
 * The identity API from the browser (docs/identity.md), as TanStack Query hooks: people and
 * roles, invites, API keys, agents' keys and disabling, channel members and visibility. Every
 * mutation refreshes the lists it changes. Errors are ApiRequestError (components/live/api.ts).
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { apiRequest } from "@/components/live/api";
import { queryKeys } from "@/components/live/query-keys";
import type { ApiKeySummary, InviteSummary, PersonSummary, ThreadSummary } from "@/lib/api/types";

export type { ApiKeySummary, InviteSummary, PersonSummary };
export type Role = PersonSummary["role"];
export interface ChannelMember {
  member: string;
  name: string;
  added_by: string;
  added_at: string;
}

const json = (body: unknown) => ({ body: JSON.stringify(body) });

export function usePeople() {
  return useQuery({ queryKey: ["people"], queryFn: async () => (await apiRequest<{ people: PersonSummary[] }>("/api/people")).people });
}

export function useSetRole() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ user_id, role }: { user_id: string; role: Role }) => apiRequest(`/api/people/${encodeURIComponent(user_id)}`, { method: "PATCH", ...json({ role }) }),
    onSettled: () => qc.invalidateQueries({ queryKey: ["people"] }),
  });
}

/** Deactivate a person (their sessions, keys and sockets stop at once) or activate them again (admins). */
export function useSetDeactivated() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ user_id, deactivated }: { user_id: string; deactivated: boolean }) => apiRequest(`/api/people/${encodeURIComponent(user_id)}`, { method: "PATCH", ...json({ deactivated }) }),
    onSettled: () => qc.invalidateQueries({ queryKey: ["people"] }),
  });
}

/** Lift the lock on a person's sign-in after too many failed passwords (admins). */
export function useUnlockSignIn() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (user_id: string) => apiRequest(`/api/people/${encodeURIComponent(user_id)}/sign-in-lock`, { method: "DELETE" }),
    onSettled: () => qc.invalidateQueries({ queryKey: ["people"] }),
  });
}

export function useInvites() {
  return useQuery({ queryKey: ["invites"], queryFn: async () => (await apiRequest<{ invites: InviteSummary[] }>("/api/invites")).invites });
}

export function useCreateInvite() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (input: { role: Role; note?: string }) => apiRequest<{ invite: InviteSummary; token: string; path: string }>("/api/invites", { method: "POST", ...json(input) }),
    onSettled: () => qc.invalidateQueries({ queryKey: ["invites"] }),
  });
}

export function useRevokeInvite() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => apiRequest(`/api/invites/${encodeURIComponent(id)}`, { method: "DELETE" }),
    onSettled: () => qc.invalidateQueries({ queryKey: ["invites"] }),
  });
}

/** Your keys, or (`all`, admins) every key. */
export function useKeys(all = false) {
  return useQuery({ queryKey: ["keys", all], queryFn: async () => (await apiRequest<{ keys: ApiKeySummary[] }>(`/api/keys${all ? "?all=true" : ""}`)).keys });
}

/** A new key: your own (`agent_id` unset) or an external agent's (admins). The key is in the answer only. */
export function useCreateKey() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ name, agent_id }: { name: string; agent_id?: string }) =>
      apiRequest<{ id: string; key: string; summary: ApiKeySummary }>(agent_id ? `/api/agents/${encodeURIComponent(agent_id)}/keys` : "/api/keys", { method: "POST", ...json({ name }) }),
    onSettled: () => qc.invalidateQueries({ queryKey: ["keys"] }),
  });
}

export function useRevokeKey() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => apiRequest(`/api/keys/${encodeURIComponent(id)}`, { method: "DELETE" }),
    onSettled: () => qc.invalidateQueries({ queryKey: ["keys"] }),
  });
}

export function useSetAgentDisabled() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ agent_id, disabled }: { agent_id: string; disabled: boolean }) => apiRequest(`/api/agents/${encodeURIComponent(agent_id)}`, { method: "PATCH", ...json({ disabled }) }),
    onSettled: () => qc.invalidateQueries({ queryKey: queryKeys.agents }),
  });
}

export function useChannelMembers(thread_id: string) {
  return useQuery({
    queryKey: ["members", thread_id],
    queryFn: async () => (await apiRequest<{ members: ChannelMember[] }>(`/api/threads/${encodeURIComponent(thread_id)}/members`)).members,
  });
}

export function useChannelMemberChange(thread_id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ member, add }: { member: string; add: boolean }) =>
      apiRequest(`/api/threads/${encodeURIComponent(thread_id)}/members${add ? "" : `/${encodeURIComponent(member)}`}`, add ? { method: "POST", ...json({ member }) } : { method: "DELETE" }),
    onSettled: () => qc.invalidateQueries({ queryKey: ["members", thread_id] }),
  });
}

export function useSetVisibility(thread_id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (visibility: "public" | "private") =>
      apiRequest<{ thread: ThreadSummary }>(`/api/threads/${encodeURIComponent(thread_id)}`, { method: "PATCH", ...json({ visibility }) }),
    onSettled: () => qc.invalidateQueries({ queryKey: queryKeys.threads }),
  });
}
