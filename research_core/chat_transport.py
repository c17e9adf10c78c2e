"""A lean chat-completions transport for `ChatOpenAI`: the OpenAI SDK's generic POST, untyped.

`ChatOpenAI` sends every call through the SDK's typed `chat.completions.create`, which walks the
request against the SDK's TypedDict annotations (about 1.2 ms of CPU per call) and builds a
pydantic response object that LangChain immediately dumps back to a dict (another 0.5 ms). The
payload LangChain builds is already plain JSON, and LangChain reads the answer as a dict just as
well, so neither step does anything for Arbor. At full fan-out eight branches wake at the same
moment and the interpreter lock runs their client code one after another, so this CPU sat on the
critical path of every round (bench/README.md sections 1 and 2).

The transport posts through the same `openai.OpenAI` client with `cast_to=httpx.Response`, the
SDK's documented way to make untyped requests: retries (429 with Retry-After, 5xx, timeouts), the
error types, authentication and timeouts are the SDK's, exactly as before.
"""

from __future__ import annotations

from typing import Any

import httpx
import openai

CHAT_COMPLETIONS_PATH = "/chat/completions"


class NotAChatCompletion(ValueError):
    """The endpoint answered 2xx with a body that is not JSON (a proxy's or login page, a wrong URL)."""

    def __init__(self, response: httpx.Response):
        preview = " ".join(response.text.split())[:120]
        kind = response.headers.get("content-type", "no content type")
        super().__init__(f"{kind}: {preview!r}")


class RawChatCompletion:
    """The answer in the shape LangChain reads from `with_raw_response.create(...)`."""

    def __init__(self, response: httpx.Response):
        self.http_response = response
        self.headers = response.headers

    def parse(self) -> Any:
        """The decoded JSON body; NotAChatCompletion when the body is not JSON."""
        try:
            return self.http_response.json()
        except ValueError as exc:
            raise NotAChatCompletion(self.http_response) from exc


class _RawCreate:
    def __init__(self, root: openai.OpenAI):
        self._root = root

    def create(
        self,
        *,
        extra_headers: dict[str, str] | None = None,
        extra_query: dict[str, object] | None = None,
        extra_body: dict[str, object] | None = None,
        timeout: float | httpx.Timeout | None = None,
        **params: Any,
    ) -> RawChatCompletion:
        if params.get("stream"):
            raise NotImplementedError("Arbor's chat transport does not stream; build the model with disable_streaming.")
        options: dict[str, Any] = {"headers": extra_headers or {}}
        if extra_query:
            options["params"] = extra_query
        if timeout is not None:
            options["timeout"] = timeout
        response = self._root.post(
            CHAT_COMPLETIONS_PATH,
            body={**params, **(extra_body or {})},
            cast_to=httpx.Response,
            options=options,
        )
        return RawChatCompletion(response)


class ChatCompletionsTransport:
    """Stands in for `openai.OpenAI().chat.completions` as `ChatOpenAI(client=...)`.

    Only the non-streaming path LangChain's `_generate` takes is provided, so the chat model must
    be built with `disable_streaming=True`.
    """

    def __init__(self, root: openai.OpenAI):
        self.root = root
        self.with_raw_response = _RawCreate(root)
