"""Show a running AutoGen team live in a Clutch channel (docs/adapters.md "AutoGen").

Wrap `team.run_stream(...)` with `forward(...)`: every AgentChat message the team yields is posted
to Clutch as `message.model_dump(mode="json")`, and a UserProxyAgent built with `clutch_input`
asks the people in the channel and waits for their answer there (a long poll).

    import asyncio
    from autogen_agentchat.agents import AssistantAgent, UserProxyAgent
    from autogen_agentchat.conditions import TextMentionTermination
    from autogen_agentchat.teams import RoundRobinGroupChat
    from autogen_ext.models.openai import OpenAIChatCompletionClient
    from forwarder import Clutch

    async def main() -> None:
        clutch = Clutch("http://localhost:3000", api_key="clutch_...")   # a person's or agent's key
        run = await clutch.start(channel="general", task="Write a 4-line poem about the ocean.", team="Poets", model="gpt-4o-mini")
        model = OpenAIChatCompletionClient(model="gpt-4o-mini")
        assistant = AssistantAgent("assistant", model_client=model)
        user_proxy = UserProxyAgent("user_proxy", input_func=run.input_func)
        team = RoundRobinGroupChat([assistant, user_proxy], termination_condition=TextMentionTermination("APPROVE"))
        await run.forward(team.run_stream(task="Write a 4-line poem about the ocean."))
        await clutch.close()

    asyncio.run(main())

Needs `pip install autogen-agentchat httpx` (AgentChat 0.4 or later). A failed POST is retried:
Clutch stores each message once by its `id`, so a retry never shows it twice.
"""

from __future__ import annotations

import asyncio
from typing import Any, AsyncIterator, Optional

import httpx
from autogen_agentchat.agents import UserProxyAgent
from autogen_agentchat.base import TaskResult
from autogen_agentchat.messages import BaseAgentEvent, BaseChatMessage
from autogen_core import CancellationToken


class ClutchRun:
    """One AutoGen run shown in a Clutch channel: post its messages, fetch people's answers."""

    def __init__(self, http: httpx.AsyncClient, run_id: str, channel: str) -> None:
        self.http = http
        self.run_id = run_id
        self.channel = channel

    async def post(self, item: dict[str, Any] | list[dict[str, Any]], attempts: int = 5) -> dict[str, Any]:
        """POST one message (or a batch, or the TaskResult); retried on network errors and 429/5xx."""
        for attempt in range(attempts):
            try:
                res = await self.http.post(f"/api/autogen/runs/{self.run_id}/messages", json=item)
                if res.status_code == 429 or res.status_code >= 500:
                    raise httpx.HTTPStatusError("retry", request=res.request, response=res)
                res.raise_for_status()  # 400: a message Clutch cannot read; it names the item and path
                return res.json()
            except (httpx.TransportError, httpx.HTTPStatusError) as err:
                if isinstance(err, httpx.HTTPStatusError) and err.response.status_code < 500 and err.response.status_code != 429:
                    raise
                if attempt == attempts - 1:
                    raise
                retry_after = err.response.headers.get("retry-after") if isinstance(err, httpx.HTTPStatusError) else None
                await asyncio.sleep(float(retry_after) if retry_after else 2**attempt)
        raise RuntimeError("unreachable")

    async def forward(self, stream: AsyncIterator[BaseAgentEvent | BaseChatMessage | TaskResult]) -> Optional[TaskResult]:
        """Post every item of `team.run_stream(...)` as it comes; returns the TaskResult."""
        result: Optional[TaskResult] = None
        async for item in stream:
            if isinstance(item, TaskResult):
                result = item
                await self.post({"messages": [m.model_dump(mode="json") for m in item.messages], "stop_reason": item.stop_reason})
            else:
                await self.post(item.model_dump(mode="json"))
        return result

    async def input_func(self, prompt: str = "", cancellation_token: Optional[CancellationToken] = None) -> str:
        """A UserProxyAgent `input_func`: wait for a person's answer in the channel (30 s polls)."""
        # The UserInputRequestedEvent of this request (AutoGen sets its id in the context) may reach
        # Clutch a moment after this is called: a 404 unknown_request means "not posted yet".
        request_id = UserProxyAgent.InputRequestContext.request_id()
        while True:
            res = await self.http.get(f"/api/autogen/runs/{self.run_id}/input", params={"request_id": request_id, "wait": "30"}, timeout=45)
            if res.status_code == 200:
                return str(res.json()["text"])
            if res.status_code == 404 and res.json().get("error", {}).get("code") == "unknown_request":
                await asyncio.sleep(0.5)
            elif res.status_code != 204:
                res.raise_for_status()
            if cancellation_token is not None and cancellation_token.is_cancelled():
                raise asyncio.CancelledError()


class Clutch:
    """A Clutch server reached with an API key (Authorization: Bearer)."""

    def __init__(self, url: str, api_key: str) -> None:
        self.http = httpx.AsyncClient(base_url=url, headers={"authorization": f"Bearer {api_key}"}, timeout=30)

    async def start(self, channel: str, task: Optional[str] = None, team: Optional[str] = None, model: Optional[str] = None) -> ClutchRun:
        """Open a run in `channel` (its name); `team` is how the team is shown (default: the channel);
        `model` is the model its clients use, what Clutch prices its token usage as."""
        body: dict[str, Any] = {"channel": channel}
        if task:
            body["task"] = task
        if team:
            body["team"] = team
        if model:
            body["model"] = model
        res = await self.http.post("/api/autogen/runs", json=body)
        res.raise_for_status()
        data = res.json()
        return ClutchRun(self.http, data["run_id"], data["channel"])

    async def close(self) -> None:
        await self.http.aclose()
